package dev.sluice.bench.load;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A grid node's Envoy rate limit service as a contender: {@code
 * envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} through Envoy's own generated stubs
 * (grpc-java, Netty, plaintext HTTP/2), one request with one descriptor {@code key=<the load's
 * key>} in domain {@value #DOMAIN} per decision. The node serves {@link #envoyYaml} (written by
 * {@link Servers}): that descriptor's limit is the scenario's rule, so the RLS path counts the same
 * limit, the same keys and the same algorithm as {@code POST /v1/check} does with the named rule.
 *
 * <p>Load: the {@link LoadDriver}'s threads call the blocking stub, so this row runs under the same
 * generator, threads and key sequence as the REST rows. The calls go over {@value #CHANNELS} HTTP/2
 * connections (each thread sticks to one; calls multiplex on it), as Envoy does with one connection
 * per worker thread on a 2-core host; the REST rows use one HTTP/1.1 connection per thread.
 *
 * <p>The node answers OK to a request whose domain or descriptor matches no limit, without counting
 * anything; such an answer would measure no decision at all. So every answer must carry the matched
 * limit ({@code current_limit}) or it counts as an error.
 *
 * <p>{@link dev.sluice.bench.rls.RlsLoadDriver} is the standalone tool for the same call, against a
 * node started by hand, with its own asynchronous closed loop.
 */
public final class RlsContender implements Contender {
  /** The Envoy domain of {@link #envoyYaml}, as Envoy's filter would send it. */
  static final String DOMAIN = "bench";

  /** The descriptor entry's key; its value is the load's key. */
  static final String DESCRIPTOR_KEY = "key";

  /** HTTP/2 connections to the node. */
  static final int CHANNELS = 2;

  private static final long DEADLINE_SECONDS = 10;

  private final String name;
  private final Policy enforced;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final Map<String, RateLimitRequest> requests = new HashMap<>();
  private final ThreadLocal<RateLimitServiceGrpc.RateLimitServiceBlockingStub> stub;

  /**
   * Connects to the node's RLS port; {@code enforced} is the rule the node's Envoy config gives the
   * descriptor ({@link #envoyYaml} of it).
   */
  public RlsContender(String name, int rlsPort, KeySpace keys, Policy enforced) {
    this.name = name;
    this.enforced = enforced;
    List<RateLimitServiceGrpc.RateLimitServiceBlockingStub> stubs = new ArrayList<>();
    for (int i = 0; i < CHANNELS; i++) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", rlsPort).usePlaintext().build();
      channels.add(channel);
      stubs.add(RateLimitServiceGrpc.newBlockingStub(channel));
    }
    AtomicInteger next = new AtomicInteger();
    this.stub = ThreadLocal.withInitial(() -> stubs.get(next.getAndIncrement() % stubs.size()));
    String prefix = ContenderKeys.prefix();
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.key(i);
      requests.put(key, request(prefix + key));
    }
  }

  static RateLimitRequest request(String key) {
    return RateLimitRequest.newBuilder()
        .setDomain(DOMAIN)
        .addDescriptors(
            RateLimitDescriptor.newBuilder()
                .addEntries(
                    RateLimitDescriptor.Entry.newBuilder().setKey(DESCRIPTOR_KEY).setValue(key)))
        .build();
  }

  /**
   * {@code rule} as an envoyproxy/ratelimit config: domain {@value #DOMAIN}, one limit per value of
   * descriptor {@value #DESCRIPTOR_KEY}. The peer's format counts per second, minute, hour, day,
   * week or month, and Sluice counts it with the sliding window unless told otherwise, so only a
   * sliding-window rule of one such unit can be said in it.
   */
  static String envoyYaml(BenchRule rule) {
    Policy policy = rule.policy();
    if (policy.algorithm() != Algorithm.SLIDING_WINDOW
        || !policy.window().equals(Duration.ofSeconds(1))) {
      throw new IllegalArgumentException(
          "only a sliding_window rule per 1 s fits the Envoy config here, not " + rule.describe());
    }
    return String.format(
        Locale.ROOT,
        "domain: %s%ndescriptors:%n  - key: %s%n    rate_limit:%n      unit: second%n"
            + "      requests_per_unit: %d%n",
        DOMAIN,
        DESCRIPTOR_KEY,
        policy.limit());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<Policy> enforced() {
    return Optional.of(enforced);
  }

  @Override
  public Outcome decide(String key) {
    RateLimitResponse response =
        stub.get()
            .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
            .shouldRateLimit(requests.get(key));
    if (response.getStatusesCount() != 1 || !response.getStatuses(0).hasCurrentLimit()) {
      throw new IllegalStateException(
          "the descriptor matched no limit in domain "
              + DOMAIN
              + " (an OK that counted nothing): "
              + response.getStatusesList());
    }
    return switch (response.getOverallCode()) {
      case OK -> Outcome.ALLOWED;
      case OVER_LIMIT -> Outcome.DENIED;
      default -> throw new IllegalStateException("overall code " + response.getOverallCode());
    };
  }

  @Override
  public void close() {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : channels) {
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
