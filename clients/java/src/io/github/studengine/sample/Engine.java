package io.github.studengine.sample;

import com.google.gson.Gson;
import io.github.studengine.stud.v1.ActRequest;
import io.github.studengine.stud.v1.CreateDealTicketRequest;
import io.github.studengine.stud.v1.DealTicket;
import io.github.studengine.stud.v1.HandUpdate;
import io.github.studengine.stud.v1.StartHandRequest;
import io.github.studengine.stud.v1.StudEngineServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One channel to a Stud Engine server, plaintext, with proto/service_config.json (a
 * resource of the build) as its default service config: UNAVAILABLE is retried, 4
 * attempts, 0.1 s to 1 s backoff; CANCELLED never.
 */
final class Engine implements AutoCloseable {
  private final ManagedChannel channel;
  private final StudEngineServiceGrpc.StudEngineServiceBlockingStub stub;
  private final long timeoutMs;

  private Engine(ManagedChannel channel, long timeoutMs) {
    this.channel = channel;
    this.stub = StudEngineServiceGrpc.newBlockingStub(channel);
    this.timeoutMs = timeoutMs;
  }

  static Engine dial(String target, long timeoutMs) {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target)
        .usePlaintext()
        .defaultServiceConfig(serviceConfig())
        .enableRetry()
        .build();
    return new Engine(channel, timeoutMs);
  }

  @SuppressWarnings("unchecked")
  static Map<String, ?> serviceConfig() {
    try (InputStream in = Engine.class.getResourceAsStream("/service_config.json")) {
      if (in == null) {
        throw new IllegalStateException("service_config.json is not in the build");
      }
      return new Gson().fromJson(new InputStreamReader(in, StandardCharsets.UTF_8), Map.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private StudEngineServiceGrpc.StudEngineServiceBlockingStub call() {
    return stub.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /** A deal ticket for a verifiable deal (docs/security.md). */
  DealTicket createDealTicket(CreateDealTicketRequest request) {
    return call().createDealTicket(request).getTicket();
  }

  HandUpdate startHand(StartHandRequest request) {
    return call().startHand(request).getHand();
  }

  /** Safe to retry (the service config does): the state carries its own seq. */
  HandUpdate act(ActRequest request) {
    return call().act(request).getHand();
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
