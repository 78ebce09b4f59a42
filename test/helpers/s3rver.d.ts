// s3rver ships no types; the few members the test helper uses.
declare module "@20minutes/s3rver" {
  import type { AddressInfo } from "node:net";
  export default class S3rver {
    constructor(o: {
      address: string;
      port: number;
      silent: boolean;
      directory: string;
      configureBuckets: { name: string }[];
    });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
