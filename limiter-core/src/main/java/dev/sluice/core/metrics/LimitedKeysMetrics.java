package dev.sluice.core.metrics;

import dev.sluice.core.stats.NodeStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sluice_limited_keys{rule}}: how many distinct keys a rule denied on this node in the last
 * one to two minutes, from the console's sketches ({@link NodeStats#limitedKeyCounts}), refreshed
 * once a second. The keys themselves are not labels (one series per IP address would be unbounded):
 * they are on the console and {@code GET /v1/stats/limited-keys}. A rule that stopped denying loses
 * its series.
 */
public final class LimitedKeysMetrics {
  public static final String LIMITED_KEYS = "sluice.limited.keys";

  private LimitedKeysMetrics() {}

  public static void bind(NodeStats stats, MeterRegistry registry) {
    MultiGauge gauge =
        MultiGauge.builder(LIMITED_KEYS)
            .description(
                "Distinct keys a rule denied here in the last 1-2 minutes (the console's sketch, at"
                    + " most 64 per rule)")
            .register(registry);
    stats.afterEachTick(
        () -> {
          List<MultiGauge.Row<?>> rows = new ArrayList<>();
          stats
              .limitedKeyCounts()
              .forEach((rule, count) -> rows.add(MultiGauge.Row.of(Tags.of("rule", rule), count)));
          gauge.register(rows, true);
        });
  }
}
