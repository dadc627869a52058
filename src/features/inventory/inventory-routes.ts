import type { FastifyInstance } from 'fastify';
import { errors } from '../../errors.js';
import { ErrorBody } from '../../http/error-body.js';
import type { Services } from '../../services.js';
import { InventoryDocument } from './inventory-schema.js';
import { readInventory } from './read-inventory.js';

export const INVENTORY_READBACK = 'javascript-package-inventory';

// Same wording as the committed readbacks (CONTRACT, Readbacks); the 500 adds which file failed,
// relative to INVENTORY_ROOT, so the detail never reveals the server's directory layout.
export const inventoryErrors = {
  notFound: () => errors.readbackNotFound(INVENTORY_READBACK),
  unreadable: (reason: string) => errors.readbackInvalid(INVENTORY_READBACK, reason),
} as const;

/** The package inventory, derived live from INVENTORY_ROOT on every request (CONTRACT, Readbacks). */
export async function inventoryRoutes(
  app: FastifyInstance,
  { services }: { services: Pick<Services, 'config' | 'clock'> },
) {
  app.get(
    `/agents/${INVENTORY_READBACK}`,
    {
      schema: {
        summary: 'JavaScript package inventory: workspaces, lock file and drift (read-only)',
        tags: ['readbacks'],
        response: { 200: InventoryDocument, 404: ErrorBody, 500: ErrorBody },
      },
    },
    async (request) => {
      const outcome = readInventory(
        services.config.inventoryRoot,
        () => new Date(services.clock.now()),
      );
      if (outcome.ok) return outcome.document;
      request.log.warn(
        { root: services.config.inventoryRoot, detail: outcome.detail },
        'inventory unavailable',
      );
      throw outcome.reason === 'not_found'
        ? inventoryErrors.notFound()
        : inventoryErrors.unreadable(outcome.detail);
    },
  );
}
