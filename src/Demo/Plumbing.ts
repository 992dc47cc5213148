import type { SiteSpec } from "./Build.js"
import { plumbingArticles } from "./PlumbingArticles.js"

/** A national plumbing and heating company in Great Britain. */
export const plumbing: SiteSpec = {
  name: "Demo Plumbing & Heating",
  website_url: "https://www.demoplumbing.example",
  language: "en-GB",
  country: "GB",
  geographic_scope: "national",
  industry: "Plumbing",
  articlePath: "/blog/",
  drafts: 2,
  scheduled: 1,
  backlinks: 27,
  articles: plumbingArticles,
  pointsHeading: (article) => `What you need to know about ${article.topic}`,
  adviceHeading: "When to call a professional",
  context: [
    (article) =>
      `Our engineers answer questions about ${article.topic} every week, in everything from Victorian terraces to new-build flats. The same few causes come up again and again, and knowing them helps you decide whether a job is one for you or for a qualified plumber.`,
    (article) =>
      `Before you start, it helps to understand how your system is set up: whether you have a combi boiler or a cylinder, where the stopcock is, and which pipes are plastic and which are copper. With that in mind, here is what matters most when it comes to ${article.topic}.`,
    (article) =>
      `Homeowners often put off thinking about ${article.topic} until something goes wrong. In our experience, small plumbing problems rarely stay small, and dealing with them early is almost always cheaper.`
  ],
  advice: [
    {
      partner: { href: "https://www.northfieldbathrooms.example/bathroom-design", text: "Northfield Bathrooms" },
      text: (_, partner) =>
        `Anything involving gas, the boiler itself or the flue must be done by a Gas Safe registered engineer; it is a legal requirement, not a recommendation. If a job turns out to be more than a quick fix, book a visit and ask for a fixed price before work starts.${partner === "" ? "" : ` For bathroom refits we often work alongside ${partner}, who handle the design and tiling.`}`
    },
    {
      partner: { href: "https://www.tapstone-softeners.example/", text: "Tapstone Water Softeners" },
      text: (_, partner) =>
        `If you are not confident isolating the water or the electricity, stop there. A professional visit costs far less than repairing water damage, and a good plumber will explain the options rather than sell you the most expensive one.${partner === "" ? "" : ` Customers in hard water areas can also ask ${partner} about softening the supply.`}`
    },
    {
      partner: { href: "https://www.greenwayheatpumps.example/suitability-survey", text: "Greenway Heat Pumps" },
      text: (article, partner) =>
        `Always check that your plumber is insured, gives a written quote and guarantees the work. When it comes to ${article.topic}, a second opinion is worth having whenever the first quote recommends replacing something expensive.${partner === "" ? "" : ` If you are considering low-carbon heating, ${partner} can assess whether your home is suitable.`}`
    }
  ],
  practical: [
    "Keep a note of your boiler's make and model, the date of its last service and the location of the stopcock somewhere easy to find. It saves time when you call an engineer, and it means anyone in the household can act quickly if water starts to leak.",
    "Prices vary around the country, but a call-out for a straightforward repair costs far less during normal working hours than at night or at weekends. If the problem can safely wait until the morning, isolate the water and book the first slot of the day.",
    "It is also worth checking your home insurance and any boiler cover you hold before booking. Many policies include emergency plumbing, and some require you to use their approved engineers for a claim to be paid."
  ],
  closing: [
    (article) =>
      `If you have any questions about ${article.topic}, our team is available seven days a week across England, Scotland and Wales. Call us or book online for a fixed-price visit.`,
    () =>
      "Regular maintenance is the cheapest way to avoid emergency call-outs. Many of our customers combine an annual boiler service with a general plumbing check to keep everything running smoothly.",
    () =>
      "Every job we carry out comes with a twelve-month workmanship guarantee, and our engineers carry the common parts for most boilers and taps, so most repairs are finished on the first visit."
  ],
  sources: {
    industry: [
      "www.plumbingtradejournal.example",
      "www.heatingandplumbingmonthly.example",
      "forum.installerhub.example",
      "www.homeimprovementhub.example",
      "www.energysavingblog.example",
      "www.ukbuildersdirectory.example"
    ],
    local: [
      "www.manchestereveningpost.example",
      "www.leedscommunitynews.example",
      "www.bristolbusinessdirectory.example",
      "www.birminghamchamber.example",
      "www.cardiffhomeowners.example"
    ]
  },
  sourcePaths: [
    "articles/winter-heating-checklist",
    "news/local-firms-hiring-apprentices",
    "guides/choosing-a-plumber",
    "directory/plumbers",
    "blog/bathroom-trends",
    "features/cutting-energy-bills",
    "reviews/boiler-brands-compared"
  ],
  exactAnchors: ["emergency plumber", "boiler repair", "plumbing and heating engineers", "boiler installation"]
}
