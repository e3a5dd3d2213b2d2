package dev.sluice.node.envoy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One level of a domain's descriptor tree: its limit (if any) and the levels under it, by key.
 *
 * <p>A request entry {@code (key, value)} finds its child the peer's way ({@link #find}): the child
 * with that key and exactly that value first, then the first child of that key whose wildcard value
 * matches (in file order), then the child with that key and no value (the default for the key). The
 * domain itself is the root node; it has no limit.
 */
final class DescriptorNode {
  /** The children with one key: by exact value, by wildcard, and the one without a value. */
  private record Branch(Map<String, Child> exact, List<Child> wildcards, @Nullable Child keyOnly) {}

  /**
   * A child level as the config writes it.
   *
   * @param key the descriptor key
   * @param value the value as written: empty for a key-only entry, the pattern for a wildcard
   * @param wildcard the value as a pattern, or null if it has no {@code *}
   * @param node the level itself
   */
  record Child(String key, String value, @Nullable Wildcard wildcard, DescriptorNode node) {
    /** How the peer names this level in metrics: {@code key} or {@code key_value}. */
    String segment() {
      return value.isEmpty() ? key : key + "_" + value;
    }
  }

  private final @Nullable Limit limit;
  private final boolean valueToMetric;
  private final boolean shareThreshold;
  private final Map<String, Branch> children;

  private DescriptorNode(
      @Nullable Limit limit,
      boolean valueToMetric,
      boolean shareThreshold,
      Map<String, Branch> children) {
    this.limit = limit;
    this.valueToMetric = valueToMetric;
    this.shareThreshold = shareThreshold;
    this.children = children;
  }

  @Nullable Limit limit() {
    return limit;
  }

  boolean valueToMetric() {
    return valueToMetric;
  }

  /** All values that match this level's wildcard share one counter. */
  boolean shareThreshold() {
    return shareThreshold;
  }

  boolean hasChildren() {
    return !children.isEmpty();
  }

  /** The child a request entry goes to, or null if none of this level's entries fits it. */
  @Nullable Child find(String key, String value) {
    Branch branch = children.get(key);
    if (branch == null) {
      return null;
    }
    Child exact = branch.exact().get(value);
    if (exact != null) {
      return exact;
    }
    for (Child wildcard : branch.wildcards()) {
      if (wildcard.wildcard().matches(value)) {
        return wildcard;
      }
    }
    return branch.keyOnly();
  }

  /** Builds a level; {@link EnvoyConfigLoader} refuses duplicates before adding them. */
  static final class Builder {
    private final @Nullable Limit limit;
    private final boolean valueToMetric;
    private final boolean shareThreshold;
    private final Map<String, List<ChildBuilder>> children = new LinkedHashMap<>();

    private record ChildBuilder(String key, String value, Builder node) {}

    Builder(@Nullable Limit limit, boolean valueToMetric, boolean shareThreshold) {
      this.limit = limit;
      this.valueToMetric = valueToMetric;
      this.shareThreshold = shareThreshold;
    }

    static Builder root() {
      return new Builder(null, false, false);
    }

    void add(String key, String value, Builder child) {
      children
          .computeIfAbsent(key, k -> new ArrayList<>())
          .add(new ChildBuilder(key, value, child));
    }

    DescriptorNode build() {
      Map<String, Branch> branches = new HashMap<>();
      for (Map.Entry<String, List<ChildBuilder>> entry : children.entrySet()) {
        Map<String, Child> exact = new HashMap<>();
        List<Child> wildcards = new ArrayList<>();
        Child keyOnly = null;
        for (ChildBuilder builder : entry.getValue()) {
          String value = builder.value();
          Wildcard wildcard = Wildcard.isPattern(value) ? new Wildcard(value) : null;
          Child child = new Child(builder.key(), value, wildcard, builder.node().build());
          if (value.isEmpty()) {
            keyOnly = child;
          } else if (wildcard != null) {
            wildcards.add(child);
          } else {
            exact.put(value, child);
          }
        }
        branches.put(
            entry.getKey(), new Branch(Map.copyOf(exact), List.copyOf(wildcards), keyOnly));
      }
      return new DescriptorNode(limit, valueToMetric, shareThreshold, Map.copyOf(branches));
    }
  }
}
