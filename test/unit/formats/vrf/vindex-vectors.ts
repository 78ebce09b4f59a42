// The index's VRF output (src/formats/vrf/vindex-output.ts) for the secret keys and alphas of
// RFC 9381 Appendix B.3 (Examples 16, 17, 18; sk, pk, alpha and pi are the RFC's). u8h, u8gamma
// and output were computed by `referenceVindex` in vindex-output.test.ts, noble's Point API step
// by step and none of the module's code; that test recomputes them, and checks that the Gamma it
// reaches is the one in the RFC's pi, so the chain is anchored on published values.
export interface VindexVector {
  readonly sk: string;
  readonly pk: string;
  readonly alpha: string;
  readonly pi: string;
  /** RFC 9381's own output, which the index's is not. */
  readonly beta: string;
  /** u(8·H), what the native path multiplies. */
  readonly u8h: string;
  /** u(8·Gamma). */
  readonly u8gamma: string;
  /** SHA-512("vindex/v1 output" ‖ u(8·Gamma)). */
  readonly output: string;
}

export const VINDEX_VECTORS: readonly VindexVector[] = [
  {
    sk: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    pk: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    alpha: "",
    pi:
      "8657106690b5526245a92b003bb079ccd1a92130477671f6fc01ad16f26f723f" +
      "26f8a57ccaed74ee1b190bed1f479d97" +
      "27d2d0f9b005a6e456a35d4fb0daab1268a1b0db10836d9826a528ca76567805",
    beta:
      "90cf1df3b703cce59e2a35b925d411164068269d7b2d29f3301c03dd757876ff" +
      "66b71dda49d2de59d03450451af026798e8f81cd2e333de5cdf4f3e140fdd8ae",
    u8h: "b6dbfa251510fd1a6d37b3144ee8c779c26cdc605ca5d6f8e92c7caace614f69",
    u8gamma: "cad9bf061ec76dc886540db78cd8e2b794d25df55bf482d4dc6f29b118a36b53",
    output:
      "4a5bff873e59d318bfb6065699c89b691da61badc8dbbcbdc8e3c60e07cce6db" +
      "d2540b1b441d04b24961ef31fd56b2b1ab72d6d3e4cf543623b0ca2d59834ba4",
  },
  {
    sk: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    pk: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    alpha: "72",
    pi:
      "f3141cd382dc42909d19ec5110469e4feae18300e94f304590abdced48aed593" +
      "3bf0864a62558b3ed7f2fea45c92a465" +
      "301b3bbf5e3e54ddf2d935be3b67926da3ef39226bbc355bdc9850112c8f4b02",
    beta:
      "eb4440665d3891d668e7e0fcaf587f1b4bd7fbfe99d0eb2211ccec90496310eb" +
      "5e33821bc613efb94db5e5b54c70a848a0bef4553a41befc57663b56373a5031",
    u8h: "ac5cd27e1f7c6ecd5ff714fd2fc2b3183f0fc4f7dfa2d36eb7e77dec3f576c23",
    u8gamma: "67ce7dc1932da80bdfa3c1c8ff6a139f4d0fb33ac46ef47324570aad1ce78d4f",
    output:
      "e2bd94ff323fb2bac011a025d18a6e68415fee0fb87b466bb2b1723265487e5f" +
      "ba7d62e609c1dc2b8b373848101841cace625d9f2b3d728f73aaa1dbd4893f3b",
  },
  {
    sk: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    pk: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    alpha: "af82",
    pi:
      "9bc0f79119cc5604bf02d23b4caede71393cedfbb191434dd016d30177ccbf80" +
      "96bb474e53895c362d8628ee9f9ea3c0" +
      "e52c7a5c691b6c18c9979866568add7a2d41b00b05081ed0f58ee5e31b3a970e",
    beta:
      "645427e5d00c62a23fb703732fa5d892940935942101e456ecca7bb217c61c45" +
      "2118fec1219202a0edcf038bb6373241578be7217ba85a2687f7a0310b2df19f",
    u8h: "985650cf1b4e13a733d4e05fd88e007f173b4ec2f72c6bdf7a6714f4251dbe31",
    u8gamma: "b4dc15f05392a556806fc55b304bf9f986c0764bdb8d97ea3ba2fd4043b35905",
    output:
      "d39f969632511614611c0ade8d97fb55c4d982dfa891e4c2994a6634fc92b805" +
      "9b21cb60231d639de10c55930c0c53644a00cae63e87a5b8f872f8e19548c0c8",
  },
];

export const unhex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, "hex"));
export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** Microseconds per call of fn, over `n` calls after a few to warm up. */
export function perCall(fn: (i: number) => unknown, n: number): number {
  for (let i = 0; i < 20; i++) fn(i);
  const start = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return ((performance.now() - start) * 1000) / n;
}

// Encodings of points of small order (the torsion of edwards25519): the identity, the point of
// order 2, both of order 4 and one of order 8. The tests check each decodes and is of small order.
export const SMALL_ORDER: readonly string[] = [
  `01${"00".repeat(31)}`,
  `ec${"ff".repeat(30)}7f`,
  "00".repeat(32),
  `${"00".repeat(31)}80`,
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
];
