import type { ArticleSpec } from "./Build.js"

/** The plumbing company's articles, in the order the demo publishes them (the last ones are its drafts and scheduled). */
export const plumbingArticles: ReadonlyArray<ArticleSpec> = [
  {
    title: "How to Fix a Dripping Tap in Five Steps",
    slug: "fix-a-dripping-tap",
    keyword: "fix a dripping tap",
    topic: "dripping taps",
    intro:
      "A dripping tap wastes more than 5,000 litres of water a year and usually comes down to a worn washer or a tired ceramic cartridge. With the water isolated and a couple of basic tools, most people can fix it in under an hour.",
    points: [
      "Turn off the isolation valve under the sink, or the stopcock if there is none, and open the tap to drain it.",
      "Remove the handle and headgear, then check whether the tap uses a rubber washer or a quarter-turn cartridge.",
      "Take the old part to a merchant so that you buy an exact match, and refit everything hand-tight before testing."
    ]
  },
  {
    title: "Combi vs System Boiler: Which Suits Your Home?",
    slug: "combi-vs-system-boiler",
    keyword: "combi vs system boiler",
    topic: "choosing a new boiler",
    intro:
      "Choosing between a combi and a system boiler depends mostly on how many bathrooms you have and how many people want hot water at the same time. Both are efficient; they simply deliver hot water in different ways.",
    points: [
      "A combi heats water on demand, needs no cylinder and suits flats and homes with one bathroom.",
      "A system boiler stores hot water in a cylinder, so two showers can run at once without losing pressure.",
      "System boilers pair well with solar thermal panels and heat pumps if you plan to add them later."
    ]
  },
  {
    title: "Why Is My Boiler Losing Pressure?",
    slug: "boiler-losing-pressure",
    keyword: "boiler losing pressure",
    topic: "boiler pressure",
    intro:
      "If the gauge on your boiler keeps dropping below one bar, water is escaping from the heating system somewhere. The cause is often simple, but a boiler that needs topping up every week should be looked at.",
    points: [
      "Check radiator valves, towel rails and visible pipework for damp patches, rust marks or drips.",
      "Bleeding radiators lowers the pressure, so re-pressurise with the filling loop afterwards.",
      "A faulty pressure relief valve or expansion vessel inside the boiler needs a Gas Safe registered engineer."
    ]
  },
  {
    title: "How to Bleed a Radiator (and When You Should)",
    slug: "how-to-bleed-a-radiator",
    keyword: "how to bleed a radiator",
    topic: "bleeding radiators",
    intro:
      "Radiators that are cold at the top and warm at the bottom have air trapped inside them. Bleeding them takes a radiator key, an old cloth and about ten minutes, and it can noticeably cut your heating bills.",
    points: [
      "Switch the heating off and let the radiators cool so that you are not sprayed with hot water.",
      "Open the bleed valve a quarter turn, wait for the hiss to stop and close it as soon as water appears.",
      "Check the boiler pressure afterwards and top it up to between 1 and 1.5 bar if it has dropped."
    ]
  },
  {
    title: "Preventing Frozen Pipes This Winter",
    slug: "prevent-frozen-pipes",
    keyword: "prevent frozen pipes",
    topic: "frozen pipes",
    intro:
      "A burst pipe can release hundreds of litres of water in an hour, and most happen during the first hard frost of the year. A few inexpensive precautions in autumn make a frozen pipe far less likely.",
    points: [
      "Lag pipes in lofts, garages and outside walls with foam insulation, paying attention to bends and joints.",
      "Keep the heating on a low frost setting when you go away, rather than switching it off completely.",
      "Know where your stopcock is and make sure it turns, so that you can shut the water off quickly."
    ]
  },
  {
    title: "Seven Signs You Need a New Boiler",
    slug: "signs-you-need-a-new-boiler",
    keyword: "signs you need a new boiler",
    topic: "replacing a boiler",
    intro:
      "Most boilers last between ten and fifteen years. Towards the end of that time, repairs become more frequent and efficiency drops, and replacing the boiler can be cheaper than keeping the old one running.",
    points: [
      "Rising gas bills with no change in how you use the heating point to falling efficiency.",
      "Yellow or lazy flames, soot marks or a sooty smell are warning signs that need attention the same day.",
      "Parts for older models become hard to source, which turns a simple repair into a long wait."
    ]
  },
  {
    title: "Low Water Pressure: Common Causes and Fixes",
    slug: "low-water-pressure",
    keyword: "low water pressure",
    topic: "water pressure",
    intro:
      "Weak showers and slow-filling baths are frustrating, but low water pressure is not always the water company's fault. The cause can be anywhere between the street and your taps.",
    points: [
      "Check that the stopcock is fully open; it is often left half-closed after earlier work.",
      "Ask neighbours whether they have the same problem, which would point to the supply rather than your pipes.",
      "Old galvanised or lead pipes narrow over time and may need replacing with modern plastic or copper."
    ]
  },
  {
    title: "How Much Does a New Bathroom Cost in the UK?",
    slug: "bathroom-installation-cost",
    keyword: "bathroom installation cost",
    topic: "bathroom costs",
    intro:
      "A new bathroom in the UK typically costs between £6,000 and £12,000 fitted, although the range is wide. Labour, tiling and moving pipework usually account for more of the bill than the suite itself.",
    points: [
      "Keeping the toilet, basin and bath in their current positions avoids the cost of re-routing waste pipes.",
      "Allow for tiling, flooring, lighting and an extractor fan as well as the suite and the fitting.",
      "Get at least three itemised quotes so that you can compare like for like."
    ]
  },
  {
    title: "Unblocking a Drain Without Harsh Chemicals",
    slug: "unblock-a-drain",
    keyword: "unblock a drain",
    topic: "blocked drains",
    intro:
      "Most sink and shower blockages are made of hair, soap and cooking fat. Before reaching for caustic drain cleaner, which can damage older pipes, try the mechanical methods that professionals use.",
    points: [
      "A sink plunger with a wet cloth over the overflow creates far more suction than plunging alone.",
      "Remove and clean the trap under the sink, with a bucket underneath to catch the water.",
      "A cheap plastic drain snake pulls hair out of shower wastes in seconds."
    ]
  },
  {
    title: "What Happens During an Annual Boiler Service?",
    slug: "annual-boiler-service",
    keyword: "boiler service",
    topic: "boiler servicing",
    intro:
      "An annual boiler service keeps your manufacturer's warranty valid and catches small faults before they turn into breakdowns in the middle of winter. A standard service takes between 30 and 60 minutes.",
    points: [
      "The engineer checks the flue, the seals and the gas pressure, and analyses the combustion gases.",
      "Components such as the burner, heat exchanger and condensate trap are inspected and cleaned.",
      "You receive a written record, which insurers and future buyers of your home may ask to see."
    ]
  },
  {
    title: "Heat Pump vs Gas Boiler: Running Costs Compared",
    slug: "heat-pump-vs-gas-boiler",
    keyword: "heat pump vs gas boiler",
    topic: "heat pumps",
    intro:
      "Air source heat pumps are now a realistic alternative to gas boilers for many homes, especially with government grants towards the installation cost. Whether one suits you depends on insulation and radiator sizes.",
    points: [
      "A heat pump delivers around three units of heat for every unit of electricity it uses.",
      "It runs at lower flow temperatures, so some radiators may need to be replaced with larger ones.",
      "Good loft and wall insulation matters more for a heat pump than for a gas boiler."
    ]
  },
  {
    title: "Hard Water and Limescale: Protecting Your Appliances",
    slug: "hard-water-limescale",
    keyword: "hard water limescale",
    topic: "limescale",
    intro:
      "More than half of homes in England are in hard water areas. Limescale shortens the life of boilers, kettles and washing machines, and a millimetre of scale on a heat exchanger raises heating costs.",
    points: [
      "A scale reducer fitted on the mains supply protects a combi boiler and is required by many warranties.",
      "A water softener removes hardness entirely, but keep one unsoftened tap for drinking water.",
      "Descaling shower heads and taps every few months keeps water flowing freely."
    ]
  },
  {
    title: "What to Do in a Plumbing Emergency",
    slug: "plumbing-emergency",
    keyword: "emergency plumber",
    topic: "plumbing emergencies",
    intro:
      "When water is coming through the ceiling, the first few minutes matter most. Knowing what to do before an emergency plumber arrives limits the damage and can save thousands of pounds in repairs.",
    points: [
      "Turn off the water at the stopcock, then open the cold taps to drain the system.",
      "If water is near light fittings or sockets, switch off the electricity at the consumer unit.",
      "Take photographs of the damage for your insurer before you start clearing up."
    ]
  },
  {
    title: "Is a Power Flush Worth It for Your Central Heating?",
    slug: "power-flush-central-heating",
    keyword: "power flush central heating",
    topic: "power flushing",
    intro:
      "Over the years, sludge made of rust and debris builds up in central heating systems. A power flush clears it out, restoring heat to cold spots and protecting a new boiler from early failure.",
    points: [
      "Cold patches at the bottom of radiators and a noisy boiler are classic signs of sludge.",
      "A power flush circulates cleaning chemicals at high velocity through the whole system.",
      "Fitting a magnetic filter afterwards keeps the system clean for years."
    ]
  },
  {
    title: "Electric, Mixer or Power Shower: Which Should You Choose?",
    slug: "types-of-shower",
    keyword: "types of shower",
    topic: "choosing a shower",
    intro:
      "The right shower depends on your hot water system and your water pressure. Fitting the wrong type leads to a disappointing trickle or, worse, a shower that cannot work at all.",
    points: [
      "Electric showers heat cold mains water themselves and work with any boiler type.",
      "Mixer showers blend hot and cold water and suit combi boilers and unvented cylinders.",
      "Power showers include a pump and only work with gravity-fed systems, never with mains pressure."
    ]
  },
  {
    title: "Are Smart Thermostats Worth the Money?",
    slug: "smart-thermostat",
    keyword: "smart thermostat",
    topic: "heating controls",
    intro:
      "Smart thermostats promise lower bills by heating your home only when you need it. For households with irregular routines, the savings can pay for the device within a couple of winters.",
    points: [
      "Room-by-room control with smart radiator valves avoids heating empty bedrooms.",
      "Geofencing turns the heating down when everyone leaves and back up as you head home.",
      "Check compatibility with your boiler before you buy, especially with older models."
    ]
  },
  {
    title: "Leaking Toilet? How to Find and Fix the Problem",
    slug: "leaking-toilet",
    keyword: "leaking toilet",
    topic: "toilet leaks",
    intro:
      "A toilet that keeps running or leaves a puddle on the floor wastes water and can rot floorboards. The fault is usually one of three parts, and all of them are inexpensive to replace.",
    points: [
      "A few drops of food colouring in the cistern reveal a leaking flush valve within twenty minutes.",
      "Water around the base usually means a failed seal between the pan and the soil pipe.",
      "A constantly running overflow points to a fill valve that no longer shuts off."
    ]
  },
  {
    title: "Underfloor Heating: Wet or Electric?",
    slug: "underfloor-heating",
    keyword: "underfloor heating",
    topic: "underfloor heating",
    intro:
      "Underfloor heating frees up wall space and gives an even, comfortable warmth. Wet systems run from your boiler or heat pump, while electric mats are simpler to fit in a single room.",
    points: [
      "Wet systems cost more to install but are cheaper to run across a whole floor.",
      "Electric mats suit bathrooms and small extensions where the floor is being replaced anyway.",
      "Floor coverings matter: stone and tile conduct heat well, thick carpet does not."
    ]
  }
]
