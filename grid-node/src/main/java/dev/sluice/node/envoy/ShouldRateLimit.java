package dev.sluice.node.envoy;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.headers.RateLimitHeaders;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Answers Envoy's {@code ShouldRateLimit} as envoyproxy/ratelimit does, with Sluice counting.
 *
 * <h2>One request, step by step</h2>
 *
 * <ol>
 *   <li>Check the request (a domain, at least one descriptor, bounded sizes, well-formed text); a
 *       bad one is refused whole and counts nothing.
 *   <li>A domain the config does not have: every descriptor OK, nothing counted.
 *   <li>Each descriptor finds its limit ({@link EnvoyConfig#match}), or takes the one Envoy sent in
 *       it ({@code limit}: counted per the descriptor's full values, never in shadow mode).
 *   <li>{@code replaces}: a limit whose {@code name} another matched limit replaces (an unlimited
 *       one included) is dropped, as if it had not matched.
 *   <li>Count every counted descriptor in one batch through Sluice ({@link SluiceCounting}), each
 *       independently: one over its limit does not stop another from counting. Hits: the
 *       descriptor's {@code hits_addend} if set (0 looks without counting), else the request's,
 *       else 1. A {@code requests_per_unit: 0} limit, or more hits than the limit can ever hold, is
 *       OVER_LIMIT without counting; under {@code shadow_mode} it is OK, since shadow mode never
 *       denies.
 *   <li>Statuses, one per descriptor in order: OK with no limit; OK with {@code limit_remaining}
 *       4294967295 for an unlimited one; else the code, {@code current_limit} (the file's {@code
 *       requests_per_unit}, unit and name), {@code limit_remaining} and {@code
 *       duration_until_reset} (when over: until a retry would succeed; else: until the limit is
 *       whole again). A shadow limit that is over says OK.
 *   <li>The overall code: OVER_LIMIT if any non-quota descriptor is, or if every quota-mode
 *       descriptor is; then OK anyway under the global shadow mode ({@code envoyShadowMode}).
 *   <li>Headers ({@link #headers}) and metrics ({@link EnvoyMetrics}).
 *   <li>A limit whose {@code sluice.on_denied} is {@code shadow_ban} never shows: its status is a
 *       bare OK and it binds no header, admitted or denied; when it denied, an OK answer asks Envoy
 *       to add {@value #SHADOW_BANNED_HEADER} to the request for the upstream.
 * </ol>
 */
final class ShouldRateLimit {
  /**
   * The request header Envoy adds for the upstream when a limit whose {@code sluice.on_denied} is
   * {@code shadow_ban} denied the request: its value names the banned limits (each limit's {@code
   * name}, else the domain and the matched path), comma-separated. The answer is OK, so the client
   * sees what the upstream answers; the upstream skips the side effect.
   */
  static final String SHADOW_BANNED_HEADER = "x-sluice-shadow-banned";

  static final int MAX_DESCRIPTORS = 256;
  static final int MAX_ENTRIES = 64;
  private static final long MAX_UINT32 = 0xFFFF_FFFFL;

  private final Supplier<EnvoyConfig> config;
  private final SluiceCounting counting;
  private final EnvoyMetrics metrics;
  private final Set<Family> families;
  private final boolean globalShadowMode;
  private final LongSupplier nowNanos;

  /**
   * @param config the current config, read once per request
   * @param headers the header families added to Envoy's response ({@link #headers})
   * @param globalShadowMode answer OK even when a limit is over ({@code envoyShadowMode})
   * @param nowNanos the clock for {@code duration_until_reset} of limits nothing counts
   */
  ShouldRateLimit(
      Supplier<EnvoyConfig> config,
      SluiceCounting counting,
      EnvoyMetrics metrics,
      Set<Family> headers,
      boolean globalShadowMode,
      LongSupplier nowNanos) {
    this.config = config;
    this.counting = counting;
    this.metrics = metrics;
    this.families = Set.copyOf(headers);
    this.globalShadowMode = globalShadowMode;
    this.nowNanos = nowNanos;
  }

  /** What one descriptor is: not limited, unlimited, blocked without counting, or counted. */
  private enum Kind {
    NONE,
    UNLIMITED,
    BLOCKED,
    COUNTED
  }

  /** One descriptor's plan, and, once counted, what Sluice said. */
  private static final class Planned {
    final Kind kind;
    final @Nullable Match match;
    final String domain;
    final long hits;
    @Nullable Decision count;

    Planned(Kind kind, @Nullable Match match, String domain, long hits) {
      this.kind = kind;
      this.match = match;
      this.domain = domain;
      this.hits = hits;
    }

    Limit limit() {
      return java.util.Objects.requireNonNull(match).limit();
    }

    boolean over() {
      return (kind == Kind.BLOCKED && !limit().shadow())
          || (kind == Kind.COUNTED
              && count != null
              && !count.allowed()
              && !count.shadowDenied()
              && !count.shadowBanned());
    }

    /** A counted limit whose denials are shadow bans: it never shows in an answer. */
    boolean shadowBans() {
      if (kind != Kind.COUNTED) {
        return false;
      }
      Policy policy = limit().policy();
      return policy != null && policy.shadowBans();
    }

    boolean banned() {
      return kind == Kind.COUNTED && count != null && count.shadowBanned();
    }

    /** The limit's name in headers: its {@code name}, else the domain and the matched path. */
    String name() {
      Match matched = java.util.Objects.requireNonNull(match);
      String named = matched.limit().name();
      return named.isEmpty() ? domain + "." + matched.configPath() : named;
    }
  }

  /**
   * The answer to {@code request}.
   *
   * @throws InvalidRequestException if the request is malformed; nothing is counted then
   */
  CompletionStage<RateLimitResponse> decide(RateLimitRequest request) {
    RequestChecks.check(request);
    String domain = request.getDomain();
    EnvoyConfig snapshot = config.get();
    if (!snapshot.hasDomain(domain)) {
      metrics.domainNotFound(domain);
      RateLimitResponse.Builder ok = RateLimitResponse.newBuilder().setOverallCode(Code.OK);
      for (int i = 0; i < request.getDescriptorsCount(); i++) {
        ok.addStatuses(DescriptorStatus.newBuilder().setCode(Code.OK));
      }
      return CompletableFuture.completedFuture(ok.build());
    }
    List<Planned> plan = plan(request, snapshot);
    List<SluiceCounting.Request> counted = new ArrayList<>();
    for (Planned planned : plan) {
      if (planned.kind == Kind.COUNTED) {
        Limit limit = planned.limit();
        Policy policy = java.util.Objects.requireNonNull(limit.policy());
        counted.add(
            new SluiceCounting.Request(
                limit.rule(),
                policy,
                SluiceCounting.subject(domain, planned.match.counterPath()),
                planned.hits));
      }
    }
    return counting
        .count(counted)
        .thenApply(
            counts -> {
              int next = 0;
              for (Planned planned : plan) {
                if (planned.kind == Kind.COUNTED) {
                  planned.count = counts.get(next++);
                }
              }
              return answer(plan);
            });
  }

  private List<Planned> plan(RateLimitRequest request, EnvoyConfig snapshot) {
    String domain = request.getDomain();
    List<Planned> plan = new ArrayList<>(request.getDescriptorsCount());
    Set<String> replaced = new HashSet<>();
    for (int i = 0; i < request.getDescriptorsCount(); i++) {
      RateLimitDescriptor descriptor = request.getDescriptors(i);
      long hits = hits(request, descriptor);
      Match match =
          descriptor.hasLimit()
              ? RequestLimits.match(i, descriptor)
              : snapshot.match(domain, descriptor.getEntriesList());
      if (match == null) {
        plan.add(new Planned(Kind.NONE, null, domain, hits));
        continue;
      }
      replaced.addAll(match.limit().replaces());
      plan.add(new Planned(kindOf(match.limit(), hits), match, domain, hits));
    }
    if (!replaced.isEmpty()) {
      for (int i = 0; i < plan.size(); i++) {
        Planned planned = plan.get(i);
        if (planned.match != null
            && !planned.limit().name().isEmpty()
            && replaced.contains(planned.limit().name())) {
          plan.set(i, new Planned(Kind.NONE, null, domain, planned.hits));
        }
      }
    }
    return plan;
  }

  /**
   * What a matched descriptor is. More hits than an enforced limit can ever hold are OVER_LIMIT
   * without counting; a shadow limit's are counted like any other, and the pipeline answers them
   * allowed and flagged (a shadow policy never denies, whatever the cost).
   */
  private static Kind kindOf(Limit limit, long hits) {
    if (limit.unlimited()) {
      return Kind.UNLIMITED;
    }
    Policy policy = limit.policy();
    if (policy == null || (hits > policy.capacity() && !limit.shadow())) {
      return Kind.BLOCKED;
    }
    return Kind.COUNTED;
  }

  /** The descriptor's {@code hits_addend} if set (0 included), else the request's, else 1. */
  private static long hits(RateLimitRequest request, RateLimitDescriptor descriptor) {
    if (descriptor.hasHitsAddend()) {
      long value = descriptor.getHitsAddend().getValue();
      return value < 0 ? Long.MAX_VALUE : value; // beyond 2^63: an unsigned 64-bit value
    }
    return Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
  }

  private RateLimitResponse answer(List<Planned> plan) {
    RateLimitResponse.Builder response = RateLimitResponse.newBuilder();
    Binding rate = new Binding();
    Binding quota = new Binding();
    int quotaTotal = 0;
    int quotaOver = 0;
    List<String> banned = new ArrayList<>();
    for (Planned planned : plan) {
      response.addStatuses(status(planned));
      if (planned.banned()) {
        banned.add(planned.name());
      }
      // A shadow-banning limit binds nothing: reporting it would tell a banned client.
      if (planned.kind == Kind.NONE || planned.kind == Kind.UNLIMITED || planned.shadowBans()) {
        continue;
      }
      if (planned.limit().quota()) {
        quotaTotal++;
        quotaOver += planned.over() ? 1 : 0;
        quota.consider(planned, retryAfterNanos(planned));
      } else {
        rate.consider(planned, retryAfterNanos(planned));
      }
    }
    boolean allQuotaOver = quotaTotal > 0 && quotaOver == quotaTotal;
    Binding reported =
        rate.over || !allQuotaOver || rate.planned == null && quota.planned == null
            ? (rate.planned != null ? rate : quota)
            : quota;
    boolean over = rate.over || allQuotaOver;
    if (over && globalShadowMode) {
      metrics.globalShadowMode();
      over = false;
    }
    response.setOverallCode(over ? Code.OVER_LIMIT : Code.OK);
    if (!over && !banned.isEmpty()) {
      response.addRequestHeadersToAdd(
          HeaderValue.newBuilder()
              .setKey(SHADOW_BANNED_HEADER)
              .setValue(String.join(", ", banned))
              .build());
    }
    response.addAllResponseHeadersToAdd(headers(reported.planned, over, reported.retryAfterNanos));
    return response.build();
  }

  /**
   * The descriptor that binds a request: the one over its limit that takes longest to allow a
   * retry, else the one with the fewest requests remaining (the first, on a tie).
   */
  private static final class Binding {
    @Nullable Planned planned;
    boolean over;
    long retryAfterNanos;

    void consider(Planned candidate, long candidateRetryAfterNanos) {
      if (candidate.over()) {
        if (!over || candidateRetryAfterNanos > retryAfterNanos) {
          planned = candidate;
          over = true;
          retryAfterNanos = candidateRetryAfterNanos;
        }
      } else if (!over && (planned == null || remaining(candidate) < remaining(planned))) {
        planned = candidate;
      }
    }
  }

  private DescriptorStatus status(Planned planned) {
    DescriptorStatus.Builder status = DescriptorStatus.newBuilder();
    switch (planned.kind) {
      case NONE -> status.setCode(Code.OK);
      case UNLIMITED -> status.setCode(Code.OK).setLimitRemaining((int) MAX_UINT32);
      case BLOCKED -> {
        // requests_per_unit 0: every request is over; a shadow limit says so, and answers OK.
        Limit limit = planned.limit();
        metricsOf(planned).over(planned.hits, limit.shadow());
        status
            .setCode(limit.shadow() ? Code.OK : Code.OVER_LIMIT)
            .setCurrentLimit(currentLimit(limit))
            .setLimitRemaining(0)
            .setDurationUntilReset(duration(untilUnitEnds(limit)));
      }
      case COUNTED -> {
        Limit limit = planned.limit();
        Decision count = java.util.Objects.requireNonNull(planned.count);
        boolean overLimit = !count.allowed() || count.shadowDenied();
        if (overLimit) {
          metricsOf(planned).over(planned.hits, count.shadowDenied());
        } else {
          metricsOf(planned).within(planned.hits, count.limit(), count.remaining());
        }
        if (planned.shadowBans()) {
          // Admitted or banned, a bare OK: no count, so that neither these statuses nor the
          // headers Envoy computes from them (enable_x_ratelimit_headers) tell a banned client.
          status.setCode(Code.OK);
          break;
        }
        status
            .setCode(count.allowed() ? Code.OK : Code.OVER_LIMIT)
            .setCurrentLimit(currentLimit(limit))
            .setLimitRemaining((int) Math.min(count.remaining(), MAX_UINT32))
            .setDurationUntilReset(
                duration(count.allowed() ? count.resetAfterNanos() : count.retryAfterNanos()));
      }
    }
    return status.build();
  }

  private EnvoyMetrics.Stats metricsOf(Planned planned) {
    return metrics.stats(planned.domain, java.util.Objects.requireNonNull(planned.match));
  }

  private static RateLimitResponse.RateLimit currentLimit(Limit limit) {
    RateLimitResponse.RateLimit.Builder current =
        RateLimitResponse.RateLimit.newBuilder()
            .setRequestsPerUnit((int) limit.requestsPerUnit())
            .setUnit(limit.unit().proto());
    if (!limit.name().isEmpty()) {
      current.setName(limit.name());
    }
    return current.build();
  }

  /** A blocked limit resets, as far as the peer says, when its unit's window of the epoch ends. */
  private long untilUnitEnds(Limit limit) {
    long unitNanos = limit.unit().window().toNanos();
    return unitNanos - Math.floorMod(nowNanos.getAsLong(), unitNanos);
  }

  private long retryAfterNanos(Planned planned) {
    if (planned.kind == Kind.BLOCKED) {
      return planned.limit().unit().window().toNanos();
    }
    return java.util.Objects.requireNonNull(planned.count).retryAfterNanos();
  }

  private static long remaining(Planned planned) {
    return planned.count == null ? 0 : planned.count.remaining();
  }

  /**
   * The headers the answer asks Envoy to add to its response ({@code response_headers_to_add}), the
   * same as the REST API's (docs/rest-api.md), about the one limit that binds the request:
   *
   * <pre>
   * RateLimit-Policy: "edge.remote_address";q=100;w=60    quota q per window w seconds
   * RateLimit: "edge.remote_address";r=0;t=42             r remaining, t seconds until whole again
   * X-RateLimit-Limit: 100                                (x-ratelimit, off by default)
   * X-RateLimit-Remaining: 0
   * X-RateLimit-Reset: 42
   * Retry-After: 3                                        only when the answer is OVER_LIMIT
   * </pre>
   *
   * The binding limit is the one that made the answer OVER_LIMIT (the one to wait longest for, if
   * several did), else the one with the fewest requests remaining. Its name is the limit's {@code
   * name} in the file, else the domain and the matched path. The headers are the ones every Sluice
   * surface writes ({@link RateLimitHeaders}: the same rounding, every delay up to whole seconds so
   * that a client that waits it out succeeds, a sub-second window {@code w=1}, names escaped as
   * Structured Field strings); only the families the operator switched on are written.
   *
   * <p>Envoy adds these headers to the response it sends downstream, allowed or not. The peer adds
   * none by default and never {@code Retry-After}; Envoy's own {@code enable_x_ratelimit_headers}
   * computes the {@code X-RateLimit-*} ones itself, so leave {@code x-ratelimit} off if that is on.
   *
   * @param binding the limit to report on, or null when no limit applied
   * @param over whether the answer is OVER_LIMIT
   * @param retryAfterNanos when over: the delay after which the request would be allowed
   */
  private List<HeaderValue> headers(@Nullable Planned binding, boolean over, long retryAfterNanos) {
    List<RateLimitHeaders.QuotaPolicy> quotas = null;
    long limit = 0;
    long remaining = 0;
    long resetAfterNanos = 0;
    if (binding != null) {
      Limit bound = binding.limit();
      Decision count = binding.count;
      Policy policy = bound.policy();
      boolean counted = binding.kind == Kind.COUNTED && count != null && policy != null;
      limit = counted ? count.limit() : bound.requestsPerUnit();
      remaining = counted ? count.remaining() : 0;
      resetAfterNanos = counted ? count.resetAfterNanos() : untilUnitEnds(bound);
      Duration window = counted ? policy.window() : bound.unit().window();
      quotas = List.of(new RateLimitHeaders.QuotaPolicy(binding.name(), limit, window.toNanos()));
    }
    Decision answer =
        over
            ? Decision.deny(limit, remaining, retryAfterNanos, resetAfterNanos)
            : Decision.allow(limit, remaining, resetAfterNanos);
    List<HeaderValue> values = new ArrayList<>(6);
    for (RateLimitHeaders.Header header : RateLimitHeaders.of(quotas, answer, families)) {
      values.add(HeaderValue.newBuilder().setKey(header.name()).setValue(header.value()).build());
    }
    return values;
  }

  private static com.google.protobuf.Duration duration(long nanos) {
    return com.google.protobuf.Duration.newBuilder()
        .setSeconds(nanos / 1_000_000_000L)
        .setNanos((int) (nanos % 1_000_000_000L))
        .build();
  }

  /** The limits Envoy sends in a descriptor ({@code limit}), which override the config's. */
  private static final class RequestLimits {
    private RequestLimits() {}

    static Match match(int index, RateLimitDescriptor descriptor) {
      RateLimitDescriptor.RateLimitOverride override = descriptor.getLimit();
      String field = "descriptors[" + index + "].limit";
      LimitUnit unit =
          LimitUnit.fromOverride(override.getUnit())
              .orElseThrow(
                  () ->
                      new InvalidRequestException(
                          field + ".unit",
                          "must be SECOND, MINUTE, HOUR, DAY, MONTH or YEAR, was "
                              + override.getUnit()));
      long requestsPerUnit = Integer.toUnsignedLong(override.getRequestsPerUnit());
      Policy policy = null;
      if (requestsPerUnit > 0) {
        try {
          policy =
              SluiceCounting.policy(requestsPerUnit, unit.window(), null, null, null, false, null);
        } catch (InvalidPolicyException e) {
          throw new InvalidRequestException(
              field, "Sluice cannot count this limit: " + e.getMessage());
        }
      }
      // Counted inline: a limit a request carries has no descriptor path of the config to keep
      // counters under, and counts on a state of its own policy, as the peer's per-request
      // override does.
      Limit limit =
          new Limit(requestsPerUnit, unit, "", false, false, false, true, List.of(), policy, null);
      StringBuilder keys = new StringBuilder();
      StringBuilder values = new StringBuilder();
      StringBuilder counter = new StringBuilder();
      for (RateLimitDescriptor.Entry entry : descriptor.getEntriesList()) {
        if (!keys.isEmpty()) {
          keys.append('.');
          values.append('.');
          counter.append('|');
        }
        keys.append(entry.getKey());
        values.append(
            entry.getValue().isEmpty() ? entry.getKey() : entry.getKey() + "_" + entry.getValue());
        counter
            .append(EnvoyConfig.escape(entry.getKey()))
            .append('=')
            .append(EnvoyConfig.escape(entry.getValue()));
      }
      return new Match(limit, keys.toString(), values.toString(), counter.toString());
    }
  }
}
