package dev.sluice.node.envoy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The peer's statistics, as Prometheus series on the node's {@code /metrics}:
 *
 * <pre>
 * ratelimit_service_rate_limit_total_hits_total{domain="edge",descriptor="remote_address"}
 * ratelimit_service_rate_limit_within_limit_total{...}
 * ratelimit_service_rate_limit_near_limit_total{...}     hits within, above 80 % of the limit
 * ratelimit_service_rate_limit_over_limit_total{...}
 * ratelimit_service_rate_limit_shadow_mode_total{...}    over the limit, let through by shadow_mode
 * ratelimit_service_rate_limit_domain_not_found_total{domain="..."}
 * ratelimit_service_global_shadow_mode_total             answers made OK by envoyShadowMode
 * ratelimit_service_config_load_success_total, ratelimit_service_config_load_error_total
 * ratelimit_service_should_rate_limit_error_total{err_type="invalid_request"|"limiter_error"}
 * </pre>
 *
 * The names are the peer's statsd names as its Prometheus mapping writes them, plus the {@code
 * _total} that Prometheus counters carry; the peer's key path is one {@code descriptor} label
 * ({@code key1_value1.subkey1}) instead of {@code key1}, {@code key2} labels.
 *
 * <h2>Bounded cardinality</h2>
 *
 * The peer's {@code descriptor} is the config path ({@code key2}, {@code wild_foo*}): as many
 * series as the config has limits. {@code detailed_metric}, {@code value_to_metric} and limits that
 * Envoy sends in the request put request values in it, which are unbounded (one series per client
 * IP). So at most {@value #MAX_SERIES} descriptor series are kept; past that, a new one is counted
 * under its config path instead (for a request's own limit: its keys without values), and past
 * {@value #MAX_UNKNOWN_DOMAINS} unknown domains under {@code domain="~other"}.
 */
final class EnvoyMetrics {
  static final int MAX_SERIES = 2_000;
  static final int MAX_UNKNOWN_DOMAINS = 100;
  static final String OTHER = "~other";

  /** The peer's default near-limit ratio ({@code NEAR_LIMIT_RATIO}). */
  static final double NEAR_LIMIT_RATIO = 0.8;

  private static final String PREFIX = "ratelimit.service.";

  /** The five counters of one descriptor series. */
  static final class Stats {
    final Counter totalHits;
    final Counter withinLimit;
    final Counter nearLimit;
    final Counter overLimit;
    final Counter shadowMode;

    private Stats(MeterRegistry registry, String domain, String descriptor) {
      totalHits = counter(registry, "total_hits", domain, descriptor);
      withinLimit = counter(registry, "within_limit", domain, descriptor);
      nearLimit = counter(registry, "near_limit", domain, descriptor);
      overLimit = counter(registry, "over_limit", domain, descriptor);
      shadowMode = counter(registry, "shadow_mode", domain, descriptor);
    }

    private static Counter counter(
        MeterRegistry registry, String stat, String domain, String descriptor) {
      return Counter.builder(PREFIX + "rate_limit." + stat)
          .description("The peer's " + stat + " statistic, per descriptor (docs/envoy.md)")
          .tag("domain", domain)
          .tag("descriptor", descriptor)
          .register(registry);
    }

    /** {@code hits} within the limit, leaving {@code remaining} of {@code limit}. */
    void within(long hits, long limit, long remaining) {
      totalHits.increment(hits);
      withinLimit.increment(hits);
      long after = limit - remaining;
      long before = after - hits;
      long threshold = (long) Math.floor(limit * NEAR_LIMIT_RATIO);
      if (after > threshold) {
        nearLimit.increment(after - Math.max(threshold, before));
      }
    }

    /** {@code hits} over the limit; {@code shadow}: let through all the same. */
    void over(long hits, boolean shadow) {
      totalHits.increment(hits);
      overLimit.increment(hits);
      if (shadow) {
        shadowMode.increment(hits);
      }
    }
  }

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Stats> series = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> notFound = new ConcurrentHashMap<>();
  private final Counter globalShadowMode;
  private final Counter loadSuccess;
  private final Counter loadError;
  private final Counter invalidRequest;
  private final Counter limiterError;

  EnvoyMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.globalShadowMode =
        Counter.builder(PREFIX + "global_shadow_mode")
            .description("Answers made OK by envoyShadowMode although a limit was over")
            .register(registry);
    this.loadSuccess =
        Counter.builder(PREFIX + "config_load_success")
            .description("Envoy config loads and reloads that succeeded")
            .register(registry);
    this.loadError =
        Counter.builder(PREFIX + "config_load_error")
            .description("Envoy config reloads refused (the previous config stays)")
            .register(registry);
    this.invalidRequest = error("invalid_request");
    this.limiterError = error("limiter_error");
  }

  private Counter error(String type) {
    return Counter.builder(PREFIX + "should_rate_limit.error")
        .description("ShouldRateLimit calls answered with an error")
        .tag("err_type", type)
        .register(registry);
  }

  /**
   * The series of a matched descriptor: its {@code metricPath}, or its {@code configPath} once
   * {@value #MAX_SERIES} series exist.
   */
  Stats stats(String domain, Match match) {
    String key = domain + '\u0000' + match.metricPath();
    Stats stats = series.get(key);
    if (stats != null) {
      return stats;
    }
    if (series.size() >= MAX_SERIES && !match.metricPath().equals(match.configPath())) {
      return series.computeIfAbsent(
          domain + '\u0000' + match.configPath(),
          k -> new Stats(registry, domain, match.configPath()));
    }
    return series.computeIfAbsent(key, k -> new Stats(registry, domain, match.metricPath()));
  }

  void domainNotFound(String domain) {
    String label =
        notFound.containsKey(domain) || notFound.size() < MAX_UNKNOWN_DOMAINS ? domain : OTHER;
    notFound
        .computeIfAbsent(
            label,
            d ->
                Counter.builder(PREFIX + "rate_limit.domain_not_found")
                    .description("Requests for a domain the Envoy config does not have")
                    .tag("domain", d)
                    .register(registry))
        .increment();
  }

  void globalShadowMode() {
    globalShadowMode.increment();
  }

  void configLoaded(boolean success) {
    (success ? loadSuccess : loadError).increment();
  }

  void invalidRequest() {
    invalidRequest.increment();
  }

  void limiterError() {
    limiterError.increment();
  }
}
