package dev.sluice.node.envoy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.sluice.core.config.ScalarText;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * envoyproxy/ratelimit's config file as written, one record per level, bound by {@link
 * dev.sluice.core.config.StrictYaml}. Every key the peer's files may hold is here, and nothing
 * else, so a file the peer loads binds unchanged and a misspelt key fails with the list of the
 * right ones.
 *
 * <pre>
 * domain: edge
 * descriptors:
 *   - key: remote_address          # required
 *     value: 10.0.0.*             # optional; '*' matches any run of characters
 *     rate_limit:
 *       unit: minute              # second, minute, hour, day, week, month, year
 *       requests_per_unit: 100    # 0 blocks every request
 *       name: per-ip              # for replaces
 *       replaces: [{name: other}]
 *       unlimited: false
 *       sluice:                   # Sluice's own keys; the peer's files never have them
 *         algorithm: gcra         # any Sluice algorithm but leaky_bucket; default sliding_window
 *         window: 10s             # count over this instead of one unit
 *         burst: 20               # gcra, token_bucket
 *         buckets: 12             # sliding_buckets
 *         on_denied: shadow_ban   # reject (default) or shadow_ban: OK, and a request header
 *     shadow_mode: false
 *     quota_mode: false
 *     detailed_metric: false
 *     value_to_metric: false
 *     share_threshold: false
 *     metadata: {any: thing}
 *     descriptors: [...]          # nested, same shape
 * sluice:
 *   algorithm: fixed_window       # the file's default algorithm
 * </pre>
 *
 * Values the peer reads as text (domain, key, value, name) take any YAML scalar as written: {@code
 * value: 200} is the text {@code "200"}, as in the peer. Nothing here checks values; {@link
 * EnvoyConfigLoader} does, with the line of each.
 */
final class EnvoyYaml {
  private EnvoyYaml() {}

  /** One file: one domain. */
  record File(
      @JsonDeserialize(using = ScalarText.class) @Nullable String domain,
      @Nullable List<Descriptor> descriptors,
      @Nullable FileDefaults sluice) {}

  /** A descriptor level: a key, an optional value, an optional limit, and nested levels. */
  record Descriptor(
      @JsonDeserialize(using = ScalarText.class) @Nullable String key,
      @JsonDeserialize(using = ScalarText.class) @Nullable String value,
      @JsonProperty("rate_limit") @Nullable RateLimit rateLimit,
      @Nullable List<Descriptor> descriptors,
      @JsonProperty("shadow_mode") @Nullable Boolean shadowMode,
      @JsonProperty("quota_mode") @Nullable Boolean quotaMode,
      @JsonProperty("detailed_metric") @Nullable Boolean detailedMetric,
      @JsonProperty("value_to_metric") @Nullable Boolean valueToMetric,
      @JsonProperty("share_threshold") @Nullable Boolean shareThreshold,
      @Nullable JsonNode metadata) {}

  /** A limit. */
  record RateLimit(
      @JsonProperty("requests_per_unit") @Nullable Long requestsPerUnit,
      @JsonDeserialize(using = ScalarText.class) @Nullable String unit,
      @Nullable Boolean unlimited,
      @JsonDeserialize(using = ScalarText.class) @Nullable String name,
      @Nullable List<Replaces> replaces,
      @Nullable SluiceLimit sluice) {}

  /** An entry of {@code replaces}: the name of a limit this one replaces. */
  record Replaces(@JsonDeserialize(using = ScalarText.class) @Nullable String name) {}

  /** Sluice's own keys of a limit. */
  record SluiceLimit(
      @Nullable String algorithm,
      @JsonDeserialize(using = ScalarText.class) @Nullable String window,
      @Nullable Long burst,
      @Nullable Integer buckets,
      @JsonProperty("on_denied") @Nullable String onDenied) {}

  /** Sluice's own keys of a file. */
  record FileDefaults(@Nullable String algorithm) {}
}
