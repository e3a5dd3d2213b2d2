package dev.sluice.bench.rls;

import dev.sluice.bench.Usage;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A closed-loop gRPC load driver for a node's Envoy rate limit service ({@code
 * envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit}), built from Envoy's own stubs, the
 * way Envoy calls it: a few HTTP/2 connections, many calls in flight on each, one descriptor per
 * call. It keeps {@code --inflight} calls outstanding (a new one leaves when one returns), picks
 * each call's descriptor value uniformly from {@code --keys} values, and after {@code --warmup}
 * measures for {@code --duration}: answers per second, how many were OK, OVER_LIMIT or failed, and
 * the latency percentiles (HdrHistogram, microseconds, from send to answer on this side).
 *
 * <p>Against a node started by hand:
 *
 * <pre>
 * ./mvnw -q -DskipTests package
 * cat &gt; /tmp/bench-envoy.yaml &lt;&lt;'EOF'
 * domain: bench
 * descriptors:
 *   - key: remote_address
 *     rate_limit: {unit: second, requests_per_unit: 1000000}
 * EOF
 * echo 'rules: []' &gt; /tmp/bench-rules.yaml
 * SLUICE_CLUSTER_NAME=rls-bench SLUICE_MEMBER_PORT=15991 SLUICE_REST_PORT=18490 \
 *   SLUICE_RLS_PORT=18491 SLUICE_RULES_FILE=/tmp/bench-rules.yaml \
 *   SLUICE_ENVOY_CONFIG=/tmp/bench-envoy.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &amp;
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.rls.RlsLoadDriver --target 127.0.0.1:18491 --domain bench \
 *   --key remote_address --keys 10000 --inflight 64 --channels 2 --warmup 10s --duration 30s
 * </pre>
 *
 * The limit is far above what the machine can send, so every answer is OK and the figure is the
 * cost of a decision, not of a denial. An answer whose descriptor matched no limit (a wrong {@code
 * --domain} or {@code --key}: the node answers OK and counts nothing) is counted as failed.
 * Loopback only: the driver refuses any other target.
 *
 * <p>The published figures come from the load harness instead: its S8 ({@code benchmarks/run.sh
 * --only S8}, {@link dev.sluice.bench.load.RlsContender}) puts the same call beside {@code POST
 * /v1/check} on one node, under the harness's own generator.
 */
public final class RlsLoadDriver {
  static final String USAGE =
      """
      ./mvnw -q -DskipTests package
      cat > /tmp/bench-envoy.yaml <<'EOF'
      domain: bench
      descriptors:
        - key: remote_address
          rate_limit: {unit: second, requests_per_unit: 1000000}
      EOF
      echo 'rules: []' > /tmp/bench-rules.yaml
      SLUICE_CLUSTER_NAME=rls-bench SLUICE_MEMBER_PORT=15991 SLUICE_REST_PORT=18490 \\
        SLUICE_RLS_PORT=18491 SLUICE_RULES_FILE=/tmp/bench-rules.yaml \\
        SLUICE_ENVOY_CONFIG=/tmp/bench-envoy.yaml java -Xms1g -Xmx1g -jar grid-node/target/sluice-node.jar &
      java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.rls.RlsLoadDriver --target 127.0.0.1:18491 --domain bench \\
        --key remote_address --keys 10000 --inflight 64 --channels 2 --warmup 10s --duration 30s
      """;

  private RlsLoadDriver() {}

  private record Options(
      String host,
      int port,
      String domain,
      String key,
      int keys,
      int inflight,
      int channels,
      Duration warmup,
      Duration duration) {}

  public static void main(String[] args) throws Exception {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    Options options = parse(args);
    List<ManagedChannel> channels = new ArrayList<>();
    List<RateLimitServiceGrpc.RateLimitServiceStub> stubs = new ArrayList<>();
    for (int i = 0; i < options.channels(); i++) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(options.host(), options.port()).usePlaintext().build();
      channels.add(channel);
      stubs.add(RateLimitServiceGrpc.newStub(channel));
    }
    List<RateLimitRequest> requests = new ArrayList<>(options.keys());
    for (int i = 0; i < options.keys(); i++) {
      requests.add(
          RateLimitRequest.newBuilder()
              .setDomain(options.domain())
              .addDescriptors(
                  RateLimitDescriptor.newBuilder()
                      .addEntries(
                          RateLimitDescriptor.Entry.newBuilder()
                              .setKey(options.key())
                              .setValue(
                                  "10."
                                      + (i >> 16 & 255)
                                      + "."
                                      + (i >> 8 & 255)
                                      + "."
                                      + (i & 255))))
              .build());
    }
    Run warmup = new Run(stubs, requests, options.inflight());
    warmup.drive(options.warmup());
    Run measured = new Run(stubs, requests, options.inflight());
    long start = System.nanoTime();
    measured.drive(options.duration());
    double seconds = (System.nanoTime() - start) / 1e9;
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    Histogram latency = measured.latency.getIntervalHistogram();
    long answers = measured.ok.sum() + measured.overLimit.sum();
    System.out.printf(
        Locale.ROOT,
        "RLS %s:%d  domain %s, %d keys, %d in flight over %d channels, %.0f s measured after %.0f"
            + " s warm-up%n",
        options.host(),
        options.port(),
        options.domain(),
        options.keys(),
        options.inflight(),
        options.channels(),
        seconds,
        options.warmup().toMillis() / 1000.0);
    System.out.printf(
        Locale.ROOT,
        "  %,.0f answers/s  (OK %,d  OVER_LIMIT %,d  failed %,d)%n",
        answers / seconds,
        measured.ok.sum(),
        measured.overLimit.sum(),
        measured.failed.sum());
    System.out.printf(
        Locale.ROOT,
        "  latency us: p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  max %,d%n",
        latency.getValueAtPercentile(50) / 1000,
        latency.getValueAtPercentile(90) / 1000,
        latency.getValueAtPercentile(99) / 1000,
        latency.getValueAtPercentile(99.9) / 1000,
        latency.getMaxValue() / 1000);
    if (measured.firstFailure != null) {
      System.out.println("  first failure: " + measured.firstFailure);
    }
  }

  /** One timed stretch of closed-loop load. */
  private static final class Run {
    final List<RateLimitServiceGrpc.RateLimitServiceStub> stubs;
    final List<RateLimitRequest> requests;
    final Semaphore slots;
    final Recorder latency = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
    final LongAdder ok = new LongAdder();
    final LongAdder overLimit = new LongAdder();
    final LongAdder failed = new LongAdder();
    final int inflight;
    volatile String firstFailure;

    Run(
        List<RateLimitServiceGrpc.RateLimitServiceStub> stubs,
        List<RateLimitRequest> requests,
        int inflight) {
      this.stubs = stubs;
      this.requests = requests;
      this.inflight = inflight;
      this.slots = new Semaphore(inflight);
    }

    void drive(Duration length) throws InterruptedException {
      SplittableRandom random = new SplittableRandom(42);
      long end = System.nanoTime() + length.toNanos();
      long sent = 0;
      while (System.nanoTime() < end) {
        if (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        RateLimitRequest request = requests.get(random.nextInt(requests.size()));
        RateLimitServiceGrpc.RateLimitServiceStub stub = stubs.get((int) (sent++ % stubs.size()));
        long startNanos = System.nanoTime();
        stub.withDeadlineAfter(10, TimeUnit.SECONDS)
            .shouldRateLimit(
                request,
                new StreamObserver<>() {
                  @Override
                  public void onNext(RateLimitResponse response) {
                    latency.recordValue(
                        Math.min(System.nanoTime() - startNanos, TimeUnit.SECONDS.toNanos(60)));
                    if (response.getStatusesCount() == 0
                        || !response.getStatuses(0).hasCurrentLimit()) {
                      // An unknown domain or an unmatched descriptor is answered OK without
                      // counting anything: not a decision.
                      failed.increment();
                      if (firstFailure == null) {
                        firstFailure = "matched no limit: " + response.getStatusesList();
                      }
                    } else if (response.getOverallCode() == RateLimitResponse.Code.OVER_LIMIT) {
                      overLimit.increment();
                    } else {
                      ok.increment();
                    }
                  }

                  @Override
                  public void onError(Throwable error) {
                    failed.increment();
                    if (firstFailure == null) {
                      firstFailure = error.toString();
                    }
                    slots.release();
                  }

                  @Override
                  public void onCompleted() {
                    slots.release();
                  }
                });
      }
      // Let the calls in flight finish, so the next run starts from an idle server.
      slots.tryAcquire(inflight, 15, TimeUnit.SECONDS);
    }
  }

  private static Options parse(String[] args) {
    String target = "127.0.0.1:8081";
    String domain = "bench";
    String key = "remote_address";
    int keys = 10_000;
    int inflight = 64;
    int channels = 2;
    Duration warmup = Duration.ofSeconds(10);
    Duration duration = Duration.ofSeconds(30);
    for (int i = 0; i + 1 < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--target" -> target = value;
        case "--domain" -> domain = value;
        case "--key" -> key = value;
        case "--keys" -> keys = Integer.parseInt(value);
        case "--inflight" -> inflight = Integer.parseInt(value);
        case "--channels" -> channels = Integer.parseInt(value);
        case "--warmup" -> warmup = seconds(value);
        case "--duration" -> duration = seconds(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("options come in pairs: --name value");
    }
    int colon = target.lastIndexOf(':');
    String host = target.substring(0, colon);
    if (!host.equals("127.0.0.1") && !host.equals("localhost") && !host.equals("[::1]")) {
      throw new IllegalArgumentException("loopback targets only, was " + host);
    }
    return new Options(
        host,
        Integer.parseInt(target.substring(colon + 1)),
        domain,
        key,
        keys,
        inflight,
        channels,
        warmup,
        duration);
  }

  /** {@code 30s} or {@code 30}. */
  private static Duration seconds(String text) {
    return Duration.ofSeconds(
        Long.parseLong(text.endsWith("s") ? text.substring(0, text.length() - 1) : text));
  }
}
