package dev.sluice.node;

import static dev.sluice.node.RlsClient.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ManualTimeSource;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An envoyproxy/ratelimit config file edited while Envoy's requests keep coming: a descriptor
 * path's counters outlive the edit of its limit, as the peer's do and a named rule's do, converted
 * when the window changes and never more permissive than what was admitted.
 *
 * <p>On a frozen clock one window never ends, so the bound is exact: 100 a minute, tightened to 40
 * a minute (nothing more is admitted: more than 40 were), then loosened to 150 an hour (a window
 * change: what the minute admitted counts in the hour) admit 150 in all. Counting each limit
 * afresh, as an edit used to, admitted up to 100 + 40 + 150.
 */
class EnvoyConfigEditTest {
  private static final String CONFIG =
      """
      domain: edge
      descriptors:
        - key: remote_address
          rate_limit: {unit: %s, requests_per_unit: %d}
      """;

  /** The load: four callers of Envoy, each at most this many requests. */
  private static final int CALLERS = 4;

  private static final int MAX_CALLS_EACH = 2_000;

  /** How long any phase waits for the node or the load, at most: a loaded 2-core machine. */
  private static final long PHASE_MILLIS = 60_000;

  @TempDir Path dir;

  @Test
  void limitEditedUnderLoad_countersKept_admitsTheLastLimitInAll() throws Exception {
    Path rules = Files.writeString(dir.resolve("rules.yaml"), "rules: []\n");
    Path envoy = Files.writeString(dir.resolve("edge.yaml"), CONFIG.formatted("minute", 100));
    int memberPort = TestNodes.freePort();
    Map<String, String> env =
        TestNodes.environment(
            TestNodes.uniqueClusterName(), memberPort, List.of(memberPort), rules);
    env.put("SLUICE_RLS_PORT", Integer.toString(TestNodes.freePort()));
    env.put("SLUICE_ENVOY_CONFIG", envoy.toString());
    ManualTimeSource frozen = ManualTimeSource.at(Instant.parse("2026-03-01T12:00:10Z"));
    AtomicInteger admitted = new AtomicInteger();
    AtomicLong reportedLimit = new AtomicLong();
    AtomicInteger deniedAtTheLastLimit = new AtomicInteger();
    ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
    try (SluiceNode node = SluiceNode.start(NodeSettings.load(null, env), frozen);
        RlsClient rls = new RlsClient(node.rlsPort())) {
      List<Future<?>> load = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        load.add(
            callers.submit(
                () -> {
                  for (int i = 0; i < MAX_CALLS_EACH && deniedAtTheLastLimit.get() < 20; i++) {
                    RateLimitResponse answer =
                        rls.call("edge", descriptor("remote_address", "10.0.0.1"));
                    long limit = answer.getStatuses(0).getCurrentLimit().getRequestsPerUnit();
                    reportedLimit.set(limit);
                    if (answer.getOverallCode() == Code.OK) {
                      admitted.incrementAndGet();
                    } else if (limit == 150) {
                      deniedAtTheLastLimit.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      await(() -> admitted.get() >= 60, "60 admitted under 100 a minute");

      Files.writeString(envoy, CONFIG.formatted("minute", 40));
      await(() -> reportedLimit.get() == 40, "the node to read 40 a minute");
      int beforeLoosening = admitted.get();
      assertThat(beforeLoosening).as("never above the first limit").isLessThanOrEqualTo(100);

      Files.writeString(envoy, CONFIG.formatted("hour", 150));
      for (Future<?> caller : load) {
        caller.get(PHASE_MILLIS, TimeUnit.MILLISECONDS);
      }

      assertThat(deniedAtTheLastLimit.get()).as("the load ran into the last limit").isPositive();
      assertThat(admitted.get()).as("admitted in all, one frozen window").isEqualTo(150);
    } finally {
      callers.shutdownNow();
    }
  }

  /** Polls {@code condition} (the load runs meanwhile) for at most {@link #PHASE_MILLIS}. */
  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PHASE_MILLIS);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < deadline)
          .as("waited %d ms for %s", PHASE_MILLIS, what)
          .isTrue();
      Thread.sleep(5); // the node and the callers run on their own threads: poll, do not spin
    }
  }
}
