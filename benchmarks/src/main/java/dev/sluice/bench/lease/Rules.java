package dev.sluice.bench.lease;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Durations;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import java.util.ArrayList;
import java.util.List;

/**
 * A rule as one line of text, for traces and trace files: {@code <algorithm> <limit>/<window>},
 * optionally followed by {@code burst <n>} or {@code buckets <n>}, several limits joined by {@code
 * &}. For example {@code sliding_window 50/1s}, {@code gcra 100/1s burst 20}, {@code fixed_window
 * 10/1s & sliding_window 300/1m}.
 */
final class Rules {
  private Rules() {}

  static Policy parse(String text) {
    List<Limit> limits = new ArrayList<>();
    for (String part : text.split("&")) {
      limits.add(limit(part.strip(), text));
    }
    return limits.size() == 1 ? new Policy(limits.get(0)) : new Policy(limits, false, false);
  }

  private static Limit limit(String part, String text) {
    String[] words = part.split("\\s+");
    if (words.length < 2 || words.length % 2 != 0 || !words[1].contains("/")) {
      throw new IllegalArgumentException(
          "a rule is '<algorithm> <limit>/<window> [burst <n>] [buckets <n>]', was '" + text + "'");
    }
    String[] rate = words[1].split("/", 2);
    Limit.Builder limit =
        Limit.builder()
            .algorithm(Algorithm.fromWireName(words[0]))
            .limit(Long.parseLong(rate[0]))
            .window(Durations.parse("window", rate[1]));
    for (int i = 2; i < words.length; i += 2) {
      switch (words[i]) {
        case "burst" -> limit.burst(Long.parseLong(words[i + 1]));
        case "buckets" -> limit.buckets(Integer.parseInt(words[i + 1]));
        default ->
            throw new IllegalArgumentException(
                "unknown rule word '" + words[i] + "' in '" + text + "'");
      }
    }
    return limit.build();
  }
}
