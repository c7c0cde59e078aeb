import type { Refusal } from "../../contracts/outbound-address";
import type { ErrorDetail } from "../errors";

export { storageEndpointRefusal, webhookUrlRefusal, type Refusal } from "../../contracts/outbound-address";

export const refusalDetail = (path: string, r: Refusal): ErrorDetail[] => [{ path, issue: r.issue }];
