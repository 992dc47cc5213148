import type { SiteSpec } from "./Build.js"

/** A local law firm in Leeds. */
export const lawFirm: SiteSpec = {
  name: "Hartley & Shaw Solicitors",
  website_url: "https://www.hartleyshaw.example",
  language: "en",
  country: "GB",
  geographic_scope: "local",
  industry: "Legal services",
  articlePath: "/insights/",
  drafts: 1,
  scheduled: 1,
  backlinks: 23,
  articles: [
    {
      title: "Making a Will: A Practical Guide for Families",
      slug: "making-a-will",
      keyword: "making a will",
      topic: "wills",
      intro:
        "Around half of adults in the UK have not made a will. Without one, the intestacy rules decide who inherits, which can leave an unmarried partner with nothing and children's guardianship undecided.",
      points: [
        "A will names your executors, the people who will deal with your estate and carry out your wishes.",
        "Parents can appoint guardians for children under eighteen, which the intestacy rules cannot do.",
        "Marriage revokes an existing will, so it needs to be made again after the wedding."
      ]
    },
    {
      title: "Lasting Power of Attorney Explained",
      slug: "lasting-power-of-attorney",
      keyword: "lasting power of attorney",
      topic: "lasting powers of attorney",
      intro:
        "A lasting power of attorney lets you choose who will make decisions for you if you lose mental capacity. Without one, your family may have to apply to the Court of Protection, which is slower and more expensive.",
      points: [
        "There are two types: one for property and financial affairs, and one for health and welfare.",
        "The document must be registered with the Office of the Public Guardian before it can be used.",
        "You can only make one while you still have capacity, so it is best done early."
      ]
    },
    {
      title: "The Conveyancing Process, Step by Step",
      slug: "conveyancing-process",
      keyword: "conveyancing process",
      topic: "conveyancing",
      intro:
        "Conveyancing is the legal work of transferring a property from seller to buyer. On a typical purchase it takes between eight and twelve weeks, and most delays come from searches and long chains.",
      points: [
        "After an offer is accepted, both sides instruct solicitors and the seller's solicitor issues a draft contract.",
        "The buyer's solicitor orders local authority, water and environmental searches and raises enquiries.",
        "Contracts are exchanged once everyone is ready, at which point the sale becomes legally binding."
      ]
    },
    {
      title: "Thinking About Divorce? Your First Steps",
      slug: "divorce-first-steps",
      keyword: "divorce solicitor",
      topic: "divorce",
      intro:
        "Since no-fault divorce came into force in 2022, neither spouse needs to blame the other. The process is simpler, but the financial settlement and arrangements for children still need careful thought.",
      points: [
        "Either spouse, or both jointly, can apply online once the marriage has lasted at least a year.",
        "There is a minimum of twenty weeks between the application and the conditional order.",
        "The divorce itself does not end financial claims; a financial order is needed for that."
      ]
    },
    {
      title: "Probate: What Executors Need to Know",
      slug: "probate-guide-for-executors",
      keyword: "probate",
      topic: "probate",
      intro:
        "Being named as an executor is a responsibility as well as an honour. Probate gives you the legal authority to collect the estate, pay debts and taxes, and distribute what is left to the beneficiaries.",
      points: [
        "You will need the death certificate, the original will and details of every asset and debt.",
        "Inheritance Tax, if any is due, must usually be paid before the grant of probate is issued.",
        "Executors can be personally liable for mistakes, so keep clear records of every payment."
      ]
    },
    {
      title: "Can I Claim Unfair Dismissal?",
      slug: "unfair-dismissal",
      keyword: "unfair dismissal",
      topic: "unfair dismissal",
      intro:
        "Most employees with two years' service are protected against unfair dismissal. Even where an employer has a fair reason, it must follow a fair procedure, and many claims succeed on procedure alone.",
      points: [
        "You must contact Acas for early conciliation before you can bring a tribunal claim.",
        "The time limit is three months less one day from the date your employment ended.",
        "Some dismissals, such as for whistleblowing, are automatically unfair regardless of service."
      ]
    },
    {
      title: "Settlement Agreements: What to Check Before You Sign",
      slug: "settlement-agreements",
      keyword: "settlement agreement",
      topic: "settlement agreements",
      intro:
        "A settlement agreement ends your employment on agreed terms in exchange for you giving up the right to bring claims. It is only binding if you have taken independent legal advice, which the employer usually pays for.",
      points: [
        "Check how the payment is split between taxable pay and the tax-free termination allowance.",
        "Look carefully at the reference wording and any restrictions on working for competitors.",
        "Confidentiality clauses cannot stop you reporting wrongdoing to a regulator or the police."
      ]
    },
    {
      title: "Buying a Leasehold Flat: The Questions to Ask",
      slug: "buying-a-leasehold-flat",
      keyword: "leasehold flat",
      topic: "leasehold property",
      intro:
        "With a leasehold flat you own the right to live in the property for a fixed number of years, not the building itself. The terms of the lease affect the value of the flat and what it costs to own.",
      points: [
        "Leases with fewer than eighty years left become expensive to extend and harder to mortgage.",
        "Ask for the service charge accounts for the last three years and any planned major works.",
        "Check the ground rent, how it can rise, and any restrictions on pets or letting."
      ]
    },
    {
      title: "Resolving Landlord and Tenant Disputes",
      slug: "landlord-tenant-disputes",
      keyword: "landlord tenant dispute",
      topic: "tenancy disputes",
      intro:
        "Disputes between landlords and tenants usually concern rent arrears, repairs or deposits. Most can be resolved without going to court if both sides know where they stand legally.",
      points: [
        "Deposits must be protected in a government-approved scheme within thirty days of receipt.",
        "Landlords remain responsible for the structure, heating and hot water, whatever the tenancy says.",
        "A possession notice that is not in the correct form can set a landlord back by months."
      ]
    },
    {
      title: "Child Arrangements Orders: How the Court Decides",
      slug: "child-arrangements-orders",
      keyword: "child arrangements order",
      topic: "arrangements for children",
      intro:
        "When separated parents cannot agree where their children will live or how much time they will spend with each parent, the family court can make a child arrangements order. The child's welfare is always the court's first concern.",
      points: [
        "Parents must usually attend a mediation information meeting before applying to court.",
        "The court considers the child's wishes, needs and the effect of any change on them.",
        "Orders can be varied later if circumstances change significantly."
      ]
    },
    {
      title: "Boundary Disputes With Neighbours",
      slug: "boundary-disputes",
      keyword: "boundary dispute",
      topic: "boundary disputes",
      intro:
        "Boundary disputes can sour neighbourly relations for years and, if they reach court, cost far more than the land in question is worth. Early advice and a sensible approach usually bring a quicker result.",
      points: [
        "Land Registry plans show general boundaries only, not the precise line on the ground.",
        "Old conveyances, photographs and the position of original fences are often the best evidence.",
        "A boundary agreement, once registered, settles the line for future owners too."
      ]
    },
    {
      title: "Contesting a Will: When Is It Possible?",
      slug: "contesting-a-will",
      keyword: "contesting a will",
      topic: "will disputes",
      intro:
        "Discovering that a will leaves you less than you expected is upsetting, but disappointment alone is not a ground to challenge it. The law allows a will to be contested only in specific circumstances.",
      points: [
        "A will can be challenged if the person lacked capacity or did not know and approve its contents.",
        "Undue influence must be proved with evidence of coercion, not just persuasion.",
        "Claims under the Inheritance Act must normally be brought within six months of the grant of probate."
      ]
    },
    {
      title: "Cohabitation Agreements for Unmarried Couples",
      slug: "cohabitation-agreements",
      keyword: "cohabitation agreement",
      topic: "living together",
      intro:
        "There is no such thing as a common-law marriage in England and Wales. Couples who live together without marrying have far fewer rights if they separate, which a cohabitation agreement can address.",
      points: [
        "The agreement records who owns what and how the home will be divided if you separate.",
        "It can cover contributions to the mortgage, bills and the costs of bringing up children.",
        "Each partner should take independent advice for the agreement to carry the most weight."
      ]
    },
    {
      title: "Terms and Conditions for Small Businesses",
      slug: "terms-and-conditions-small-business",
      keyword: "terms and conditions for small business",
      topic: "business contracts",
      intro:
        "Clear terms and conditions protect a small business from late payment, disputes over scope and claims that could threaten the whole company. Copying another firm's terms is a common and costly mistake.",
      points: [
        "Payment terms should state when invoices are due and what interest applies to late payment.",
        "Limitation of liability clauses must be reasonable to be enforceable against business customers.",
        "Consumer customers have statutory rights that no contract term can remove."
      ]
    }
  ],
  pointsHeading: (article) => `Key points on ${article.topic}`,
  adviceHeading: "How we can help",
  context: [
    (article) =>
      `Clients in Leeds and across West Yorkshire often ask us about ${article.topic}. The law in this area is detailed, but the main principles are straightforward once they are set out clearly.`,
    (article) =>
      `Every situation is different, and what follows is general information rather than legal advice. It should, however, help you understand where you stand on ${article.topic} and which questions to ask.`,
    (article) =>
      `Taking advice on ${article.topic} at the outset usually costs far less than putting things right later. These are the points we go through with clients at a first meeting.`
  ],
  advice: [
    {
      partner: { href: "https://www.oakridge-estates.example/sell-your-home", text: "Oakridge Estate Agents" },
      text: (_, partner) =>
        `Our team offers a free thirty-minute initial consultation at our office in Headingley or by video call. We will explain your options and give you a clear estimate of the costs before any work begins.${partner === "" ? "" : ` Where a matter involves a sale or purchase, we work closely with ${partner}.`}`
    },
    {
      partner: { href: "https://www.harbourfinancialplanning.example/", text: "Harbour Financial Planning" },
      text: (article, partner) =>
        `We offer fixed fees for most private client and property work, so you know the cost of advice on ${article.topic} from the start. Where a fixed fee is not possible, we agree a budget and keep you updated.${partner === "" ? "" : ` For independent financial advice we often refer clients to ${partner}.`}`
    },
    {
      partner: {
        href: "https://www.mediationfirst-yorkshire.example/family-mediation",
        text: "Mediation First Yorkshire"
      },
      text: (_, partner) =>
        `If your matter is urgent, call us and one of our solicitors will speak to you the same day. Acting quickly can make a real difference to the outcome.${partner === "" ? "" : ` Where mediation may help, we recommend ${partner}.`}`
    }
  ],
  practical: [
    "It helps to gather the relevant documents before a first meeting: identification, any letters or contracts you have received, and a short timeline of events. The more we know at the start, the more useful our initial advice can be.",
    "Legal costs are a common worry. We explain at the outset how our fees are calculated, whether the legal expenses cover on your home or car insurance might pay for the matter, and what each option is likely to cost.",
    "Time limits apply to many legal claims, and some are surprisingly short. Even if you are not sure whether you want to take matters further, taking advice early keeps your options open."
  ],
  closing: [
    () =>
      "Hartley & Shaw has advised individuals and families in Leeds for more than forty years. We are authorised and regulated by the Solicitors Regulation Authority.",
    () =>
      "If you would like to talk through your situation in confidence, contact our office to arrange an appointment. Evening appointments are available on request.",
    () =>
      "This article is for general information only and does not constitute legal advice. The law may have changed since it was published, so please speak to us about your own circumstances."
  ],
  sources: {
    industry: [
      "www.legalnewsweekly.example",
      "www.solicitorsdirectory.example",
      "www.familylawblog.example",
      "www.propertylawreview.example",
      "www.employmentlawhub.example"
    ],
    local: [
      "www.yorkshireeveningnews.example",
      "www.leedschamberofcommerce.example",
      "www.headingleycommunity.example",
      "www.harrogatebusinessnetwork.example",
      "www.leedsparentsnetwork.example"
    ]
  },
  sourcePaths: [
    "news/local-firm-celebrates-anniversary",
    "directory/solicitors-in-leeds",
    "articles/what-to-do-after-a-bereavement",
    "guides/buying-your-first-home",
    "blog/employment-law-update",
    "features/family-law-reforms",
    "members/professional-services"
  ],
  exactAnchors: ["solicitors in Leeds", "family law solicitor", "conveyancing solicitor Leeds", "will writing"]
}
