// The code route (feature `code`): POST /code-search, the answer of Store.codeSearch.
import { closed, COUNT, listOf, NUMBER, orNull, STRING } from '../../route_kit/components';
import { storeRoute } from '../../route_kit/store_route';
import type { StoreSlot } from '../../route_kit/slot';
import type { Route } from '../../http/route';
import { CODE_SEARCH_BODY } from './requests';

const SYMBOL = closed({ symbol: orNull(STRING), kind: orNull(STRING), start_line: COUNT, end_line: COUNT, score: NUMBER }, [
  'symbol',
  'kind',
  'start_line',
  'end_line',
  'score',
]);
const FILES = closed(
  {
    files: listOf(
      closed({ path: STRING, language: { ...orNull(STRING), description: 'null for markdown or generically chunked files' }, symbols: listOf(SYMBOL) }, [
        'path',
        'language',
        'symbols',
      ]),
    ),
  },
  ['files'],
);

export const codeRoutes = (slot: StoreSlot): Route[] => [
  storeRoute(slot, {
    method: 'POST',
    path: '/code-search',
    access: 'read',
    body: 'raw',
    doc: {
      operationId: 'codeSearch',
      summary: 'Search a code corpus, grouped by file',
      request: CODE_SEARCH_BODY,
      errors: [502],
      responses: { 200: { description: 'Files and their symbols by descending best score', schema: FILES } },
    },
    call: (store, req, o) => store.codeSearch(req.bytes, o),
  }),
];
