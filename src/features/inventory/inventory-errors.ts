/** A file of the inventoried root that exists but cannot be read or parsed (the route's 500). */
export class InventoryReadError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'InventoryReadError';
  }
}

/** No package.json and no pnpm-workspace.yaml at the root (the route's 404). */
export class WorkspaceNotFoundError extends Error {
  constructor(readonly root: string) {
    super(`No JavaScript workspace (package.json or pnpm-workspace.yaml) at ${root}`);
    this.name = 'WorkspaceNotFoundError';
  }
}
