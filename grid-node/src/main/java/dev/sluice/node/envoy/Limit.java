package dev.sluice.node.envoy;

import dev.sluice.core.Policy;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A limit of the config, checked and ready to count: what the file's {@code rate_limit} says plus
 * the flags of its descriptor.
 *
 * @param requestsPerUnit the peer's limit; 0 denies every request (a blocked value)
 * @param unit the unit the file names; Envoy is told this unit in {@code current_limit}
 * @param name the limit's name ({@code replaces} refers to it), or empty
 * @param unlimited never counted, always OK
 * @param shadow counted and reported, but never makes the answer OVER_LIMIT
 * @param quota the peer's {@code quota_mode}: the answer is OVER_LIMIT only if every quota limit of
 *     the request is over (or another, non-quota limit is)
 * @param detailedMetric metrics per request value instead of per config entry (bounded, see {@link
 *     EnvoyMetrics})
 * @param replaces names of the limits this one switches off when both apply to one request
 * @param policy how Sluice counts it ({@link SluiceCounting}); null when unlimited or blocked
 * @param rule the named rule Sluice counts it under, one per domain and descriptor path of the
 *     config ({@link SluiceCounting#ruleName}), so that an edit of the limit keeps the counters;
 *     null when unlimited or blocked
 */
record Limit(
    long requestsPerUnit,
    LimitUnit unit,
    String name,
    boolean unlimited,
    boolean shadow,
    boolean quota,
    boolean detailedMetric,
    List<String> replaces,
    @Nullable Policy policy,
    @Nullable String rule) {

  Limit {
    replaces = List.copyOf(replaces);
  }
}
