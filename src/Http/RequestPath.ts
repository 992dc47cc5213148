/** The path of a request URL, without its query string. */
export const pathOf = (url: string) => url.split("?")[0] ?? url

/**
 * A request URL as the access log writes it: the value of any `token` parameter left out, so that a password reset
 * link (a secret until it is used) is never readable in the logs.
 */
export const loggedUrl = (url: string) => url.replace(/([?&]token=)[^&#]*/gi, "$1[redacted]")

/** Whether a request URL carries a `token` parameter: no trace span records it (spans hold the full URL). */
export const carriesToken = (url: string) => /[?&]token=/i.test(url)
