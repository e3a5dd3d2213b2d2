package dev.sluice.node.envoy;

/**
 * The limit a request descriptor matched, and the names it is counted and reported under.
 *
 * @param limit the limit
 * @param configPath the matched levels as the config writes them, the peer's metric key without the
 *     domain: {@code key1_value1.subkey1}, {@code wild_foo*}; bounded by the size of the config
 * @param metricPath the key the descriptor's metrics go under: {@code configPath}, or with request
 *     values where {@code detailed_metric} or {@code value_to_metric} ask for them (not bounded by
 *     the config: {@link EnvoyMetrics} caps how many it keeps)
 * @param counterPath the request's entries as {@code key=value|key=value}, escaped, with the
 *     wildcard pattern in place of the value where {@code share_threshold} says all values share
 *     one counter: together with the domain and the limit, the key of the counter
 */
record Match(Limit limit, String configPath, String metricPath, String counterPath) {}
