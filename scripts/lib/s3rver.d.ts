/** Minimal typing of the parts of s3rver (an untyped CommonJS package) the local S3 uses. */
declare module "s3rver" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface S3rverOptions {
    silent?: boolean;
    directory?: string;
    address?: string;
    port?: number;
    vhostBuckets?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  export default class S3rver {
    constructor(options?: S3rverOptions);
    configureBuckets(): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    reset(): void;
    /** s3rver is a Koa app: `event` carries an S3 event notification for each object created, copied or deleted. */
    on(event: "event", listener: (event: never) => void): this;
  }
}
