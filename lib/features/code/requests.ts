// The /code-search body (spec, "POST /code-search"), checked by the schema /openapi.json publishes
// for it (CodeSearchRequest).
import { checkedBody } from '../../store/request_body';
import type { CodeSearchRequest } from '../../types';

export const checkCodeSearch = (raw: unknown): CodeSearchRequest => checkedBody<CodeSearchRequest>('CodeSearchRequest', raw);
