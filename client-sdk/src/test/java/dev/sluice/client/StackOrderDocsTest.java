package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The order of the layers in front of the storage is the one the builder makes, not one a page
 * remembers: a client over a limiter that holds leases has every layer, and docs/architecture.md
 * and {@link SluiceClient}'s Javadoc list them in the order its {@link BackendStack} reports.
 */
class StackOrderDocsTest {
  private final LeasingLocalLimiter leasing = new LeasingLocalLimiter();

  @AfterEach
  void stop() {
    leasing.stack().close();
  }

  @Test
  void builtOrder_hasEveryLayer() {
    assertThat(builtOrder())
        .containsExactly(
            BackendStack.Position.LEASE_ANSWERS.label(),
            BackendStack.Position.DENIED_CACHE.label(),
            BackendStack.Position.FAILURE_POLICY.label(),
            BackendStack.Position.LEASE_ASKS.label(),
            BackendStack.Position.BATCHING.label(),
            BackendStack.STORAGE);
  }

  @Test
  void architectureDoc_listsTheLayersInTheBuiltOrder() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "architecture.md"));
    String section = between(doc, "## The layers in front of the storage", "\n## ");
    assertThat(labels(section, Pattern.compile("(?m)^\\d+\\. \\*\\*([^*]+)\\*\\*")))
        .isEqualTo(builtOrder());
  }

  @Test
  void clientJavadoc_listsTheLayersInTheBuiltOrder() throws IOException {
    String source =
        Files.readString(
            Path.of("src", "main", "java", "dev", "sluice", "client", "SluiceClient.java"));
    String section = between(source, "<h2>What happens to one call</h2>", "</ol>");
    assertThat(labels(section, Pattern.compile("<li><b>([^<]+)</b>"))).isEqualTo(builtOrder());
  }

  private List<String> builtOrder() {
    return SluiceClient.builder().connectTimeout(Duration.ZERO).wrap(leasing).stack().layers();
  }

  private static String between(String text, String start, String end) {
    int from = text.indexOf(start);
    assertThat(from).as("'%s' in the text", start).isNotNegative();
    int to = text.indexOf(end, from + start.length());
    return text.substring(from, to < 0 ? text.length() : to);
  }

  private static List<String> labels(String section, Pattern label) {
    List<String> labels = new ArrayList<>();
    Matcher matcher = label.matcher(section);
    while (matcher.find()) {
      labels.add(matcher.group(1));
    }
    return labels;
  }

  /** A local limiter that holds leases, so that a client over it has every layer. */
  private static final class LeasingLocalLimiter extends PipelineRateLimiter {
    LeasingLocalLimiter() {
      super(
          BackendStack.over(LocalRateLimiter.builder().build().stack().storage())
              .leases(System::nanoTime)
              .build());
    }
  }
}
