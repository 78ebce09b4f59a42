/** `assets/…` on private routes, `publicassets/…` on the public ones. */
export type Face = "assets" | "publicassets";
