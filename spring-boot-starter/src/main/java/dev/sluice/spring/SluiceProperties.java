package dev.sluice.spring;

import dev.sluice.client.FailurePolicy;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.RuleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Everything under {@code sluice.*} in {@code application.yml} (docs/spring.md has the table). The
 * configuration processor turns these components and their {@code @param} comments into the
 * metadata IDEs complete {@code sluice.*} from.
 *
 * <pre>
 * sluice:
 *   rules:
 *     - name: hello
 *       limit: 5
 *       window: 1m
 *   gates:
 *     - paths: /hello/**
 *       rule: hello
 * </pre>
 *
 * @param mode Embedded member or client. Ignored when the application defines its own {@code
 *     RateLimiter} bean: that one is used as it is.
 * @param clusterName The Hazelcast cluster name, of the member started here or of the grid a client
 *     joins.
 * @param rules Rules defined here, put into the grid's rules at start and kept there, with the
 *     fields of a rules file; each: name, limit, window, algorithm, burst, buckets, permit-ttl,
 *     limits (a list of limit, window, algorithm, burst, buckets, permit-ttl), shadow,
 *     count-denied, leases, on-denied, release, scope, on-home-unreachable, local-shares (a map of
 *     region to share).
 * @param rulesFile A rules file (docs/configuration.md) put into the grid's rules at start and
 *     hot-reloaded: a broken edit is logged and the previous rules stay.
 * @param rulesReloadInterval How often the rules file is checked for an edit.
 * @param failurePolicy What a decision answers when the grid cannot be reached in time: fail_open
 *     (admit) or fail_closed (deny, 503 at a gate).
 * @param failurePolicies The failure policy of single rules, by rule name, where it differs from
 *     failure-policy.
 * @param callTimeout How long a decision waits for the grid before the failure policy answers. 500
 *     ms, not the client SDK's 50 ms: an application's own JVM pauses (a GC, a busy CPU) for longer
 *     than 50 ms under load, and a timeout below those pauses makes the failure policy answer while
 *     the grid is well; an embedded member decides locally or one hop away, so only a member that
 *     is gone makes a call wait this long.
 * @param connectTimeout How long the start waits for a first link to the grid (client mode); 0: not
 *     at all.
 * @param leases Whether hot keys are answered from leases granted by their owners, without a round
 *     trip (docs/client.md, "Leases"); a rule with leases: off is never leased.
 * @param deniedCacheSize How many denied keys are remembered and answered locally until their
 *     retry-after; 0: off.
 * @param trustedProxies Proxies whose X-Forwarded-For is believed, as addresses or CIDR blocks
 *     (10.0.0.0/8): the client address of a gate keyed by ip is the first hop from the right that
 *     is not one of them.
 * @param gates HTTP gates: which requests are limited, by which rule, keyed and costed how; each:
 *     paths, methods, rule (or limit and window), key (ip, header, principal, expression),
 *     key-header, key-expression, cost, cost-expression, wait-up-to, reject-status,
 *     unavailable-status, position (before-security, after-security).
 * @param embedded The member started here in embedded mode when the application has none.
 * @param client The grid a client connects to.
 * @param actuator The Actuator endpoint {@code sluice}.
 */
@ConfigurationProperties("sluice")
public record SluiceProperties(
    @DefaultValue("embedded") Mode mode,
    @DefaultValue("sluice") String clusterName,
    @DefaultValue List<RuleProperties> rules,
    @Nullable Path rulesFile,
    @DefaultValue("1s") Duration rulesReloadInterval,
    @DefaultValue("fail-open") FailurePolicy failurePolicy,
    @DefaultValue Map<String, FailurePolicy> failurePolicies,
    @DefaultValue("500ms") Duration callTimeout,
    @DefaultValue("5s") Duration connectTimeout,
    @DefaultValue("true") boolean leases,
    @DefaultValue("100000") long deniedCacheSize,
    @DefaultValue List<String> trustedProxies,
    @DefaultValue List<GateProperties> gates,
    @DefaultValue Embedded embedded,
    @DefaultValue Client client,
    @DefaultValue Actuator actuator)
    implements Validator {

  /** Where the limiter's state lives: in this JVM as a grid member, or in a grid it connects to. */
  public enum Mode {
    /**
     * This application is a member of the grid: the application's own Hazelcast member when Spring
     * Boot made one, else one started from {@code sluice.embedded.*}.
     */
    EMBEDDED,
    /** A Hazelcast client of a Sluice grid ({@code sluice.client.*}), e.g. of grid nodes. */
    CLIENT
  }

  /** Spring Boot validates the bound properties with this, before anything starts. */
  @Override
  public boolean supports(Class<?> type) {
    return SluiceProperties.class.isAssignableFrom(type);
  }

  @Override
  public void validate(Object target, Errors errors) {
    new SluicePropertiesValidator().validate(target, errors);
  }

  /**
   * The member started here in embedded mode when the application has no Hazelcast member.
   *
   * @param port The member's port; the next free one above it is taken when it is in use.
   * @param members Other members to join (host:port), by TCP/IP; none: this member forms a cluster
   *     of its own.
   */
  public record Embedded(@DefaultValue("5701") int port, @DefaultValue List<String> members) {}

  /**
   * The grid a client connects to.
   *
   * @param addresses Member addresses (host:port) to connect to; 127.0.0.1:5701 when none is given.
   */
  public record Client(@DefaultValue List<String> addresses) {}

  /**
   * The Actuator endpoint {@code sluice}.
   *
   * @param adminRole The role (without ROLE_) a caller needs to reset a key through DELETE
   *     /actuator/sluice/{rule}/{key}.
   */
  public record Actuator(@DefaultValue("SLUICE_ADMIN") String adminRole) {}

  /**
   * One rule, with the fields of a rules file (docs/configuration.md): a single limit ({@code
   * limit}, {@code window}, {@code algorithm}...) or several ({@code limits}).
   *
   * @param name The rule's name, [A-Za-z0-9_.-]{1,64}.
   * @param limit Permits per window.
   * @param window The window: 250ms, 1s, 1m, 1h, 1d or ISO-8601 (PT1M).
   * @param algorithm Sliding_window (default), fixed_window, sliding_log, sliding_buckets,
   *     token_bucket, gcra, leaky_bucket or concurrency.
   * @param burst Token_bucket, gcra, leaky_bucket: how many permits may be taken at once.
   * @param buckets Sliding_buckets: how many sub-windows the window is cut into.
   * @param permitTtl Concurrency: how long a permit that is never released is held.
   * @param limits Several limits, all of which must admit (e.g. 10 per second and 1000 per hour).
   * @param shadow A shadow rule counts and reports but never denies.
   * @param countDenied Whether denied requests count too (a penalty for clients that keep trying).
   * @param leases On (default) or off: whether clients may answer this rule's hot keys from leases.
   * @param onDenied What a denial does at a gate: reject (default) or shadow_ban (pass, marked).
   * @param release What a release must show: proof (default: a check's receipt, a permit id) or
   *     open (a bare count from anyone).
   * @param scope Local (default) or global: a global rule is counted at a home grid for every
   *     region, each region answering from budget home leased to it (docs/multi-region.md).
   * @param onHomeUnreachable A global rule, when home is slow or unreachable: fail_closed (default;
   *     only budget already held), fail_open, or local_share (each region alone, from its share of
   *     the limit).
   * @param localShares Local_share only: each region's share of the limit, by region name, summing
   *     to at most 1.
   */
  public record RuleProperties(
      @Nullable String name,
      @Nullable Long limit,
      @Nullable String window,
      @Nullable String algorithm,
      @Nullable Long burst,
      @Nullable Integer buckets,
      @Nullable String permitTtl,
      @Nullable List<LimitProperties> limits,
      @Nullable Boolean shadow,
      @Nullable Boolean countDenied,
      @Nullable String leases,
      @Nullable String onDenied,
      @Nullable String release,
      @Nullable String scope,
      @Nullable String onHomeUnreachable,
      @Nullable Map<String, Double> localShares) {

    /** As a rules file states it: validated by the same code, with the same messages. */
    RuleSpec toSpec() {
      return new RuleSpec(
          name,
          algorithm,
          limit,
          window,
          burst,
          buckets,
          permitTtl,
          limits == null ? null : limits.stream().map(LimitProperties::toLimitSpec).toList(),
          shadow,
          countDenied,
          leases,
          onDenied,
          release,
          scope,
          onHomeUnreachable,
          localShares);
    }
  }

  /**
   * One limit of a rule.
   *
   * @param limit Permits per window.
   * @param window The window: 250ms, 1s, 1m, 1h, 1d or ISO-8601 (PT1M).
   * @param algorithm Sliding_window (default), fixed_window, sliding_log, sliding_buckets,
   *     token_bucket, gcra, leaky_bucket or concurrency.
   * @param burst Token_bucket, gcra, leaky_bucket: how many permits may be taken at once.
   * @param buckets Sliding_buckets: how many sub-windows the window is cut into.
   * @param permitTtl Concurrency: how long a permit that is never released is held.
   */
  public record LimitProperties(
      @Nullable Long limit,
      @Nullable String window,
      @Nullable String algorithm,
      @Nullable Long burst,
      @Nullable Integer buckets,
      @Nullable String permitTtl) {

    LimitSpec toLimitSpec() {
      return new LimitSpec(limit, window, algorithm, burst, buckets, permitTtl);
    }
  }
}
