// The Stud Engine TypeScript client: the generated API types, a retrying client over
// gRPC, Connect or gRPC-Web, a hand player that checks chip conservation, and the
// verifiable deck function that checks a deal from its reveal.

export * from "./gen/stud/v1/stud_engine_pb.js";
export * from "./gen/stud/v1/errors_pb.js";
export * from "./client.js";
export * from "./deal.js";
export * from "./hand.js";
export * from "./retry.js";
