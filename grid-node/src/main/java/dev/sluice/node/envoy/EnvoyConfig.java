package dev.sluice.node.envoy;

import dev.sluice.core.Policy;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One loaded Envoy config: the descriptor tree of every domain, immutable. A reload builds a new
 * one and swaps it in whole, so a request sees one version from start to end.
 *
 * <h2>Matching (the peer's rules)</h2>
 *
 * A request descriptor is a list of entries {@code (key, value)}. The first entry picks a level of
 * the domain ({@link DescriptorNode#find}: exact value, then wildcard, then the key's default), the
 * second a level under that one, and so on. The descriptor gets the limit of the level its
 * <em>last</em> entry lands on. So a descriptor with more entries than the config has levels gets
 * no limit, and neither does one whose last level has none:
 *
 * <pre>
 * config                          request                             limit
 * key1: value1                    (key1, value1)                      none: the level has no limit
 *   subkey1 (5/s)                 (key1, value1) (subkey1, x)         5/s
 *   subkey1: subvalue1 (10/s)     (key1, value1) (subkey1, subvalue1) 10/s: the exact value wins
 * key2 (20/min)                   (key2, anything)                    20/min: the key's default
 * key2: value3 (no limit)         (key2, value3)                      none: an allow-list entry
 *                                 (key2, value2) (subkey, x)          none: deeper than the config
 * </pre>
 */
final class EnvoyConfig {
  static final EnvoyConfig EMPTY = new EnvoyConfig(Map.of(), List.of(), Map.of());

  private final Map<String, DescriptorNode> domains;
  private final List<Path> files;
  private final Map<String, Policy> rules;

  EnvoyConfig(Map<String, DescriptorNode> domains, List<Path> files, Map<String, Policy> rules) {
    this.domains = Map.copyOf(domains);
    this.files = List.copyOf(files);
    this.rules = Map.copyOf(rules);
  }

  /**
   * The named rule of every counted limit, by name ({@link Limit#rule()}): what the node defines in
   * the rule store, so that a limit's counters outlive an edit of it ({@link SluiceCounting}).
   */
  Map<String, Policy> rules() {
    return rules;
  }

  Set<String> domains() {
    return domains.keySet();
  }

  /** The files this config was loaded from. */
  List<Path> files() {
    return files;
  }

  boolean hasDomain(String domain) {
    return domains.containsKey(domain);
  }

  /** The limit for {@code entries} in {@code domain}, or null if none applies. */
  @Nullable Match match(String domain, List<RateLimitDescriptor.Entry> entries) {
    DescriptorNode node = domains.get(domain);
    if (node == null || entries.isEmpty()) {
      return null;
    }
    int last = entries.size() - 1;
    StringBuilder configPath = new StringBuilder();
    StringBuilder valuePath = new StringBuilder();
    StringBuilder detailedPath = new StringBuilder();
    StringBuilder counterPath = new StringBuilder();
    for (int i = 0; i <= last; i++) {
      RateLimitDescriptor.Entry entry = entries.get(i);
      DescriptorNode.Child child = node.find(entry.getKey(), entry.getValue());
      if (child == null) {
        return null;
      }
      DescriptorNode level = child.node();
      boolean shared = child.wildcard() != null && level.shareThreshold();
      String counted = shared ? child.value() : entry.getValue();
      dot(configPath).append(child.segment());
      dot(valuePath).append(valueSegment(child, entry, shared));
      dot(detailedPath).append(segment(entry.getKey(), counted));
      if (i > 0) {
        counterPath.append('|');
      }
      counterPath.append(escape(entry.getKey())).append('=').append(escape(counted));
      if (i == last) {
        Limit limit = level.limit();
        if (limit == null) {
          return null;
        }
        String metricPath = limit.detailedMetric() ? detailedPath.toString() : valuePath.toString();
        return new Match(limit, configPath.toString(), metricPath, counterPath.toString());
      }
      if (!level.hasChildren()) {
        return null;
      }
      node = level;
    }
    return null;
  }

  /**
   * A level's part of the metric key under {@code value_to_metric}: the request's value where the
   * level asks for it, the pattern of a shared wildcard, else the config's own segment.
   */
  private static String valueSegment(
      DescriptorNode.Child child, RateLimitDescriptor.Entry entry, boolean shared) {
    if (shared || !child.node().valueToMetric()) {
      return child.segment();
    }
    return segment(entry.getKey(), entry.getValue());
  }

  private static String segment(String key, String value) {
    return value.isEmpty() ? key : key + "_" + value;
  }

  private static StringBuilder dot(StringBuilder path) {
    return path.isEmpty() ? path : path.append('.');
  }

  /** Keeps {@code =} and {@code |} inside keys and values from being read as separators. */
  static String escape(String text) {
    if (text.indexOf('%') < 0 && text.indexOf('=') < 0 && text.indexOf('|') < 0) {
      return text;
    }
    return text.replace("%", "%25").replace("=", "%3D").replace("|", "%7C");
  }
}
