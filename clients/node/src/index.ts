// The Stud Engine TypeScript client: the generated API types, a retrying client over
// gRPC, Connect or gRPC-Web, and a hand player that checks chip conservation.

export * from "./gen/stud/v1/stud_engine_pb.js";
export * from "./gen/stud/v1/errors_pb.js";
export * from "./client.js";
export * from "./hand.js";
export * from "./retry.js";
