// POST /backups, GET /backups, DELETE /backups/{name}: each the answer of its Store method.
// Backups only read the store, so a --read-only server makes them; they run long, so they are
// judged on --write-timeout, and a request cancelled stops its backup between two files.
import { json } from '../../http/reply';
import { parseJson } from '../../http/schema';
import { malformedJson } from '../../json_syntax';
import type { Route } from '../../http/route';
import type { StoreSlot } from '../../route_kit/slot';
import { cancellable } from '../../route_kit/store_route';
import { bodySchema, tableRoute } from '../../route_kit/table_route';

const LONG = { writeTimeoutWhen: () => true };
/** The POST /backups body, checked by the schema /openapi.json publishes; none at all reads as `{}`. */
const backupRequest = bodySchema<{ name?: string }>('createBackup');

export const backupRoutes = (slot: StoreSlot): Route[] => [
  tableRoute(
    'createBackup',
    async (req) => {
      const body = req.bytes.length === 0 ? {} : parseJson(req.bytes, backupRequest, malformedJson);
      return json(await cancellable(req, (o) => slot.get(req).createBackup(body, o)));
    },
    LONG,
  ),
  tableRoute('listBackups', async (req) => json(await cancellable(req, (o) => slot.get(req).listBackups(o)))),
  tableRoute('deleteBackup', async (req) => json(await cancellable(req, (o) => slot.get(req).deleteBackup(req.param('name'), o))), LONG),
];
