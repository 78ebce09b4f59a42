// Starts Swagger UI (the installed swagger-ui-dist, served by this service) on the service's
// own OpenAPI document: nothing is fetched from anywhere else.
declare const SwaggerUIBundle: (options: Record<string, unknown>) => unknown;

SwaggerUIBundle({
  url: "/docs/openapi.json",
  dom_id: "#api",
  deepLinking: true,
  docExpansion: "none",
  filter: true,
  tryItOutEnabled: false,
  // Swagger UI would otherwise post the document to a public validator.
  validatorUrl: null,
});
