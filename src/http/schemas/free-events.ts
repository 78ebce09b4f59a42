import { z } from "zod";
import { FREE_EVENT_FIELDS, FREE_EVENT_SEARCH_FIELDS } from "../../formats/record/free-event.js";
import { recordSchema } from "./record-schema.js";

/** An asset-free event as the API returns it. */
export const freeEventOut = recordSchema(FREE_EVENT_FIELDS);

/** An asset-free event as a search returns it. */
export const freeEventSearchOut = recordSchema(FREE_EVENT_SEARCH_FIELDS);

/** A search's answer: the page of events (the total is the `x-total-count` header). */
export const freeEventSearchAnswer = z.object({ events: z.array(freeEventSearchOut) });
