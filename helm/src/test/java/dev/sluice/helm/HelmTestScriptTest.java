package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.rest.ApiSettings;
import dev.sluice.rest.ReadinessProbe;
import dev.sluice.rest.SluiceApi;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the shell script of the {@code helm test} pod, as rendered, with {@code sh} and {@code curl}
 * against three real REST APIs on loopback. The point of the script is to fail when the nodes are
 * healthy one by one but are not one cluster (broken discovery): then each node counts its own
 * counter and the countdown across nodes breaks. Here "one cluster" is three APIs over one limiter,
 * "three clusters" is three APIs with a limiter each; the answers are the real API's.
 */
class HelmTestScriptTest {

  private static final int NODES = 3;

  private final List<SluiceApi> apis = new ArrayList<>();

  @AfterEach
  void stop() {
    apis.forEach(SluiceApi::stop);
  }

  @Test
  void script_nodesShareOneCounter_passes() throws Exception {
    LocalRateLimiter shared = LocalRateLimiter.builder().build();

    Result result = runScriptAgainst(() -> shared);

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("node 2: remaining 997 (expected 997)")
        .contains("cluster of 3 nodes is ready and shares its counters");
  }

  @Test
  void script_eachNodeIsItsOwnCluster_fails() throws Exception {
    Result result = runScriptAgainst(() -> LocalRateLimiter.builder().build());

    assertThat(result.exitCode()).as(result.output()).isEqualTo(1);
    assertThat(result.output())
        .contains("node 0: remaining 999 (expected 999)")
        .contains("node 1: remaining 999 (expected 998)")
        .contains("node 1 does not share the counter");
  }

  private record Result(int exitCode, String output) {}

  private Result runScriptAgainst(Supplier<LocalRateLimiter> limiterPerNode) throws Exception {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      SluiceApi api =
          new SluiceApi(
                  limiterPerNode.get(),
                  new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                  ApiSettings.withAdminToken("test-token"),
                  ReadinessProbe.alwaysReady(),
                  () -> 0)
              .start("127.0.0.1", 0);
      apis.add(api);
      urls.add("http://127.0.0.1:" + api.port());
    }

    JsonNode pod =
        SluiceChart.withDefaults()
            .set("replicaCount", NODES)
            .renderWithHooksAndNotes()
            .named("Pod", "rl-sluice-test-cluster");
    JsonNode container = RenderedChart.container(pod, "check-cluster");
    List<String> command = new ArrayList<>();
    container.path("command").forEach(c -> command.add(c.asText()));
    assertThat(command).hasSize(3).startsWith("sh", "-ec");

    ProcessBuilder process = new ProcessBuilder(command).redirectErrorStream(true);
    // The rendered values, with the nodes' addresses swapped for the loopback APIs.
    process
        .environment()
        .put(
            "EXPECTED_MEMBERS",
            RenderedChart.env(container).get("EXPECTED_MEMBERS").path("value").asText());
    process.environment().put("NODE_URLS", String.join(" ", urls));
    process.environment().put("SERVICE_URL", urls.get(0));
    Process running = process.start();
    if (!running.waitFor(30, TimeUnit.SECONDS)) {
      running.destroyForcibly();
      throw new AssertionError("the helm test script did not finish in 30 s");
    }
    String output = new String(running.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(running.exitValue(), output);
  }
}
