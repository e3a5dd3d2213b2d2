package dev.sluice.node;

import dev.sluice.client.FailurePolicy;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Durations;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.config.LayeredSettings;
import dev.sluice.core.grid.RegionLink;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Everything a grid node is told at start: one YAML file ({@code --config}), every key of which an
 * environment variable overrides, over built-in defaults. {@link Setting} is the single list of
 * keys; {@code docs/configuration.md} documents it in one table (a test keeps the two in step).
 * {@link LayeredSettings} does the layering, {@link NodeSettingsReader} the node's own checks.
 *
 * <pre>
 * clusterName: sluice
 * restPort: 8080
 * memberPort: 5701
 * portOffset: 0                  # added to every default port: 10 for a second node on this host
 * bindAddress: 127.0.0.1
 * discovery: tcp-ip
 * members: [127.0.0.1:5701, 127.0.0.1:5702]
 * rulesFile: rules.yaml          # relative paths are relative to this file
 * adminToken: change-me
 * failurePolicy: fail-open       # client mode: when the grid cannot answer within callTimeout
 * callTimeout: 50ms
 * failurePolicies: {login: fail-closed}
 * rlsPort: 8081                  # Envoy's rate limit service (gRPC); 0: off
 * envoyConfig: envoy/            # envoyproxy/ratelimit config files, hot-reloaded
 * respPort: 6380                 # the Redis protocol (RESP2/RESP3); 0: off
 * </pre>
 *
 * Precedence: environment variable (when set and not empty) over the file over the default. Bad
 * values fail the start with a {@link NodeConfigException} that names the source (file, line and
 * column, or the variable), the setting and what is accepted.
 *
 * @param mode {@code member}: this node holds a share of the counters; {@code client}: a REST front
 *     end that connects to a remote grid as a Hazelcast client and holds none
 * @param clusterName Hazelcast cluster name; only members with the same name join
 * @param restPort the REST API's port (0: any free port)
 * @param memberPort the Hazelcast member port (fixed, no auto-increment); like every port, its
 *     default moves with {@code portOffset}
 * @param bindAddress the address both servers bind to
 * @param publicAddress the address other members should use to reach this one, if not the bind one
 * @param discovery how members find each other
 * @param members tcp-ip discovery: the {@code host:port} of the members to join
 * @param kubernetesServiceDns kubernetes-dns discovery: the headless Service's DNS name
 * @param kubernetesNamespace kubernetes-api discovery: the namespace (default: the pod's own)
 * @param kubernetesServiceName kubernetes-api discovery: the Service whose endpoints are members
 * @param rulesFile the rules file, hot-reloaded; null: the default ({@code grid-node/rules.yaml} or
 *     the copy bundled in the jar)
 * @param rulesReloadInterval how often the rules file is checked for changes
 * @param adminToken the bearer token for admin routes; null: admin routes are open
 * @param backupCount synchronous backups of every counter (0 to 6)
 * @param insecure allow an empty admin token on a non-loopback bind address
 * @param failurePolicy client mode: how a rule without its own policy answers while the grid is
 *     unreachable
 * @param failurePolicies client mode: the rules with a failure policy of their own
 * @param callTimeout client mode: how long a decision waits for the grid before the failure policy
 *     answers
 * @param rlsPort the Envoy rate limit service's gRPC port; 0: off
 * @param envoyConfig the envoyproxy/ratelimit config file or directory; null: none (every domain
 *     unknown, every request OK)
 * @param envoyShadowMode the Envoy front end answers OK even when over a limit
 * @param envoyHeaders the headers the Envoy front end asks Envoy to add to its response
 * @param respPort the Redis protocol front end's port (CL.THROTTLE, GCRA, SLUICE.*); 0: off
 * @param region this node's region: the name a global rule's {@code localShares} use (default: the
 *     cluster name)
 * @param home member mode: this node's region and how it reaches the home grid that counts global
 *     rules (docs/multi-region.md); null: no home (a standalone grid, or home itself)
 */
public record NodeSettings(
    Mode mode,
    String clusterName,
    int restPort,
    int memberPort,
    String bindAddress,
    @Nullable String publicAddress,
    Discovery discovery,
    List<String> members,
    @Nullable String kubernetesServiceDns,
    @Nullable String kubernetesNamespace,
    @Nullable String kubernetesServiceName,
    @Nullable Path rulesFile,
    Duration rulesReloadInterval,
    @Nullable String adminToken,
    int backupCount,
    boolean insecure,
    FailurePolicy failurePolicy,
    Map<String, FailurePolicy> failurePolicies,
    Duration callTimeout,
    int rlsPort,
    @Nullable Path envoyConfig,
    boolean envoyShadowMode,
    Set<Family> envoyHeaders,
    int respPort,
    String region,
    RegionLink.@Nullable Settings home) {

  public NodeSettings {
    failurePolicies = Map.copyOf(failurePolicies);
    envoyHeaders = envoyHeaders.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(envoyHeaders));
  }

  /** What the node is in the grid. */
  public enum Mode {
    /** A member: holds partitions of the counters, decides on the ones it owns. */
    MEMBER,
    /** A Hazelcast client of a remote grid: serves the REST API, holds no counters. */
    CLIENT;

    public String wireName() {
      return NodeSettings.wireName(this);
    }
  }

  /** How members find each other. */
  public enum Discovery {
    /** A fixed list of {@code host:port} ({@code members}). */
    TCP_IP,
    /** The A records of a headless Kubernetes Service ({@code kubernetesServiceDns}). */
    KUBERNETES_DNS,
    /** The Kubernetes API: the endpoints of a Service, or every pod of the namespace. */
    KUBERNETES_API;

    public String wireName() {
      return NodeSettings.wireName(this);
    }
  }

  /** The defaults, as a node with no file and no environment runs. */
  public static NodeSettings defaults() {
    return load(null, Map.of());
  }

  /**
   * Reads {@code configFile} (if any), applies {@code environment} over it, and validates.
   *
   * @throws NodeConfigException naming the source, the setting and the problem
   */
  public static NodeSettings load(@Nullable Path configFile, Map<String, String> environment) {
    try {
      return NodeSettingsReader.read(
          LayeredSettings.load(List.of(Setting.values()), configFile, environment));
    } catch (ConfigFileException e) {
      throw new NodeConfigException(e.getMessage(), e);
    }
  }

  /** Whether {@code address} is a loopback address: only this machine can reach it. */
  public boolean bindsLoopbackOnly() {
    String address = bindAddress.toLowerCase(Locale.ROOT);
    return address.startsWith("127.")
        || address.equals("localhost")
        || address.equals("::1")
        || address.equals("[::1]");
  }

  /** Whether admin routes need a token. */
  public boolean hasAdminToken() {
    return adminToken != null && !adminToken.isEmpty();
  }

  /**
   * Every component as a setting is written ({@code callTimeout=250ms}, {@code
   * failurePolicy=fail-closed}), so that a component added later is shown too; never the admin
   * token (the settings are logged at start).
   */
  @Override
  public String toString() {
    StringJoiner text = new StringJoiner(", ", "NodeSettings[", "]");
    for (RecordComponent component : NodeSettings.class.getRecordComponents()) {
      Object value;
      try {
        value = component.getAccessor().invoke(this);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
      if (component.getName().equals("adminToken")) {
        value = hasAdminToken() ? "<set>" : "<none>";
      }
      text.add(component.getName() + "=" + written(value));
    }
    return text.toString();
  }

  private static String written(@Nullable Object value) {
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .map(entry -> entry.getKey() + "=" + written(entry.getValue()))
          .sorted()
          .collect(Collectors.joining(",", "{", "}"));
    }
    if (value instanceof Set<?> set) {
      return set.stream()
          .map(NodeSettings::written)
          .sorted()
          .collect(Collectors.joining(",", "{", "}"));
    }
    return value == null
        ? "<none>"
        : value instanceof Duration duration
            ? Durations.format(duration)
            : value instanceof Enum<?> named ? wireName(named) : value.toString();
  }

  /** An enum constant as the settings spell it: {@code FAIL_OPEN} is {@code fail-open}. */
  public static String wireName(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * Whether the client-mode settings differ from their defaults: a member ignores them, and says
   * so.
   */
  public boolean hasClientFailureSettings() {
    return failurePolicy != FailurePolicy.FAIL_OPEN
        || !failurePolicies.isEmpty()
        || !callTimeout.equals(SluiceClient.DEFAULT_CALL_TIMEOUT);
  }
}
