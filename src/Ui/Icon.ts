/** The product's mark: three rising bars on a rounded square (the favicon). */
export const iconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><path d="M9.5 23v-5M16 23V13M22.5 23V8.5" stroke="#ffffff" stroke-width="3.5" stroke-linecap="round" fill="none"/></svg>`

/** The same mark inline in the header, coloured by the stylesheet so that it follows the theme. */
export const logoSvg = `<svg viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect class="logo-bg" width="32" height="32" rx="7"/><path class="logo-bars" d="M9.5 23v-5M16 23V13M22.5 23V8.5" stroke-width="3.5" stroke-linecap="round" fill="none"/></svg>`
