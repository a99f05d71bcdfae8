/** A phone, for the browser tab. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
  '<rect x="4" y="1" width="8" height="14" rx="1.5" fill="#4a7bd0"/>' +
  '<rect x="5" y="3" width="6" height="9" fill="#f4f6fa"/><circle cx="8" cy="13.5" r=".7" fill="#f4f6fa"/></svg>';
