package dev.sluice.spring;

import dev.sluice.client.FailurePolicy;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.RuleSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Everything under {@code sluice.*} in {@code application.yml} (docs/spring.md has the table). The
 * configuration processor turns these fields and their comments into the metadata IDEs complete
 * {@code sluice.*} from.
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
 */
@ConfigurationProperties("sluice")
public class SluiceProperties implements Validator {

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

  /**
   * Embedded member or client. Ignored when the application defines its own {@code RateLimiter}
   * bean: that one is used as it is.
   */
  private Mode mode = Mode.EMBEDDED;

  /** The Hazelcast cluster name, of the member started here or of the grid a client joins. */
  private String clusterName = "sluice";

  /**
   * Rules defined here, put into the grid's rules at start and kept there, with the fields of a
   * rules file; each: name, limit, window, algorithm, burst, buckets, permit-ttl, limits (a list of
   * limit, window, algorithm, burst, buckets, permit-ttl), shadow, count-denied, leases, on-denied,
   * release, scope, on-home-unreachable, local-shares (a map of region to share).
   */
  private List<RuleProperties> rules = new ArrayList<>();

  /**
   * A rules file (docs/configuration.md) put into the grid's rules at start and hot-reloaded: a
   * broken edit is logged and the previous rules stay.
   */
  private @Nullable Path rulesFile;

  /** How often the rules file is checked for an edit. */
  private Duration rulesReloadInterval = Duration.ofSeconds(1);

  /**
   * What a decision answers when the grid cannot be reached in time: fail_open (admit) or
   * fail_closed (deny, 503 at a gate).
   */
  private FailurePolicy failurePolicy = FailurePolicy.FAIL_OPEN;

  /** The failure policy of single rules, by rule name, where it differs from failure-policy. */
  private Map<String, FailurePolicy> failurePolicies = new LinkedHashMap<>();

  /**
   * How long a decision waits for the grid before the failure policy answers. 500 ms, not the
   * client SDK's 50 ms: an application's own JVM pauses (a GC, a busy CPU) for longer than 50 ms
   * under load, and a timeout below those pauses makes the failure policy answer while the grid is
   * well; an embedded member decides locally or one hop away, so only a member that is gone makes a
   * call wait this long.
   */
  private Duration callTimeout = Duration.ofMillis(500);

  /** How long the start waits for a first link to the grid (client mode); 0: not at all. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /**
   * Whether hot keys are answered from leases granted by their owners, without a round trip
   * (docs/client.md, "Leases"); a rule with leases: off is never leased.
   */
  private boolean leases = true;

  /** How many denied keys are remembered and answered locally until their retry-after; 0: off. */
  private long deniedCacheSize = 100_000;

  /**
   * Proxies whose X-Forwarded-For is believed, as addresses or CIDR blocks (10.0.0.0/8): the client
   * address of a gate keyed by ip is the first hop from the right that is not one of them.
   */
  private List<String> trustedProxies = new ArrayList<>();

  /**
   * HTTP gates: which requests are limited, by which rule, keyed and costed how; each: paths,
   * methods, rule (or limit and window), key (ip, header, principal, expression), key-header,
   * key-expression, cost, cost-expression, wait-up-to, reject-status, unavailable-status, position
   * (before-security, after-security).
   */
  private List<GateProperties> gates = new ArrayList<>();

  private final Embedded embedded = new Embedded();
  private final Client client = new Client();
  private final Actuator actuator = new Actuator();

  public Mode getMode() {
    return mode;
  }

  public void setMode(Mode mode) {
    this.mode = mode;
  }

  public String getClusterName() {
    return clusterName;
  }

  public void setClusterName(String clusterName) {
    this.clusterName = clusterName;
  }

  public List<RuleProperties> getRules() {
    return rules;
  }

  public void setRules(List<RuleProperties> rules) {
    this.rules = rules;
  }

  public @Nullable Path getRulesFile() {
    return rulesFile;
  }

  public void setRulesFile(@Nullable Path rulesFile) {
    this.rulesFile = rulesFile;
  }

  public Duration getRulesReloadInterval() {
    return rulesReloadInterval;
  }

  public void setRulesReloadInterval(Duration rulesReloadInterval) {
    this.rulesReloadInterval = rulesReloadInterval;
  }

  public FailurePolicy getFailurePolicy() {
    return failurePolicy;
  }

  public void setFailurePolicy(FailurePolicy failurePolicy) {
    this.failurePolicy = failurePolicy;
  }

  public Map<String, FailurePolicy> getFailurePolicies() {
    return failurePolicies;
  }

  public void setFailurePolicies(Map<String, FailurePolicy> failurePolicies) {
    this.failurePolicies = failurePolicies;
  }

  public Duration getCallTimeout() {
    return callTimeout;
  }

  public void setCallTimeout(Duration callTimeout) {
    this.callTimeout = callTimeout;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public boolean isLeases() {
    return leases;
  }

  public void setLeases(boolean leases) {
    this.leases = leases;
  }

  public long getDeniedCacheSize() {
    return deniedCacheSize;
  }

  public void setDeniedCacheSize(long deniedCacheSize) {
    this.deniedCacheSize = deniedCacheSize;
  }

  public List<String> getTrustedProxies() {
    return trustedProxies;
  }

  public void setTrustedProxies(List<String> trustedProxies) {
    this.trustedProxies = trustedProxies;
  }

  public List<GateProperties> getGates() {
    return gates;
  }

  public void setGates(List<GateProperties> gates) {
    this.gates = gates;
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

  public Embedded getEmbedded() {
    return embedded;
  }

  public Client getClient() {
    return client;
  }

  public Actuator getActuator() {
    return actuator;
  }

  /** The member started here in embedded mode when the application has no Hazelcast member. */
  public static class Embedded {
    /** The member's port; the next free one above it is taken when it is in use. */
    private int port = 5701;

    /**
     * Other members to join (host:port), by TCP/IP; none: this member forms a cluster of its own.
     */
    private List<String> members = new ArrayList<>();

    public int getPort() {
      return port;
    }

    public void setPort(int port) {
      this.port = port;
    }

    public List<String> getMembers() {
      return members;
    }

    public void setMembers(List<String> members) {
      this.members = members;
    }
  }

  /** The grid a client connects to. */
  public static class Client {
    /** Member addresses (host:port) to connect to; 127.0.0.1:5701 when none is given. */
    private List<String> addresses = new ArrayList<>();

    public List<String> getAddresses() {
      return addresses;
    }

    public void setAddresses(List<String> addresses) {
      this.addresses = addresses;
    }
  }

  /** The Actuator endpoint {@code sluice}. */
  public static class Actuator {
    /**
     * The role (without ROLE_) a caller needs to reset a key through DELETE
     * /actuator/sluice/{rule}/{key}.
     */
    private String adminRole = "SLUICE_ADMIN";

    public String getAdminRole() {
      return adminRole;
    }

    public void setAdminRole(String adminRole) {
      this.adminRole = adminRole;
    }
  }

  /**
   * One rule, with the fields of a rules file (docs/configuration.md): a single limit ({@code
   * limit}, {@code window}, {@code algorithm}...) or several ({@code limits}).
   *
   * @param name the rule's name, [A-Za-z0-9_.-]{1,64}
   * @param limit permits per window
   * @param window the window: 250ms, 1s, 1m, 1h, 1d or ISO-8601 (PT1M)
   * @param algorithm sliding_window (default), fixed_window, sliding_log, sliding_buckets,
   *     token_bucket, gcra, leaky_bucket or concurrency
   * @param burst token_bucket, gcra, leaky_bucket: how many permits may be taken at once
   * @param buckets sliding_buckets: how many sub-windows the window is cut into
   * @param permitTtl concurrency: how long a permit that is never released is held
   * @param limits several limits, all of which must admit (e.g. 10 per second and 1000 per hour)
   * @param shadow a shadow rule counts and reports but never denies
   * @param countDenied whether denied requests count too (a penalty for clients that keep trying)
   * @param leases on (default) or off: whether clients may answer this rule's hot keys from leases
   * @param onDenied what a denial does at a gate: reject (default) or shadow_ban (pass, marked)
   * @param release what a release must show: proof (default: a check's receipt, a permit id) or
   *     open (a bare count from anyone)
   * @param scope local (default) or global: a global rule is counted at a home grid for every
   *     region, each region answering from budget home leased to it (docs/multi-region.md)
   * @param onHomeUnreachable a global rule, when home is slow or unreachable: fail_closed (default;
   *     only budget already held), fail_open, or local_share (each region alone, from its share of
   *     the limit)
   * @param localShares local_share only: each region's share of the limit, by region name, summing
   *     to at most 1
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
   * @param limit permits per window
   * @param window the window: 250ms, 1s, 1m, 1h, 1d or ISO-8601 (PT1M)
   * @param algorithm sliding_window (default), fixed_window, sliding_log, sliding_buckets,
   *     token_bucket, gcra, leaky_bucket or concurrency
   * @param burst token_bucket, gcra, leaky_bucket: how many permits may be taken at once
   * @param buckets sliding_buckets: how many sub-windows the window is cut into
   * @param permitTtl concurrency: how long a permit that is never released is held
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
