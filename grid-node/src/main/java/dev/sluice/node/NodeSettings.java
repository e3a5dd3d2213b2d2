package dev.sluice.node;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import dev.sluice.client.FailurePolicy;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.config.StrictYaml;
import dev.sluice.core.config.YamlLocations;
import dev.sluice.core.grid.RegionLink;
import dev.sluice.node.envoy.EnvoyHeader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Everything a grid node is told at start: one YAML file ({@code --config}), every key of which an
 * environment variable overrides, over built-in defaults. {@link Setting} is the single list of
 * keys; {@code docs/configuration.md} documents it in one table (a test keeps the two in step).
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
    Set<EnvoyHeader> envoyHeaders,
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
    MEMBER("member"),
    /** A Hazelcast client of a remote grid: serves the REST API, holds no counters. */
    CLIENT("client");

    private final String wireName;

    Mode(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  /** How members find each other. */
  public enum Discovery {
    /** A fixed list of {@code host:port} ({@code members}). */
    TCP_IP("tcp-ip"),
    /** The A records of a headless Kubernetes Service ({@code kubernetesServiceDns}). */
    KUBERNETES_DNS("kubernetes-dns"),
    /** The Kubernetes API: the endpoints of a Service, or every pod of the namespace. */
    KUBERNETES_API("kubernetes-api");

    private final String wireName;

    Discovery(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  /** Every setting: its YAML key, its environment variable, its default and what it does. */
  public enum Setting {
    MODE(
        "mode",
        "member",
        "`member`: the node holds a share of the counters. `client`: a REST front end that"
            + " connects to a remote grid (`members` or Kubernetes discovery) as a Hazelcast client"
            + " and holds none."),
    CLUSTER_NAME(
        "clusterName", "sluice", "Hazelcast cluster name; only members with the same name join."),
    REST_PORT("restPort", "8080", "Port of the REST API (0: any free port)."),
    MEMBER_PORT(
        "memberPort", "5701", "Hazelcast member port; fixed, so that member lists can name it."),
    PORT_OFFSET(
        "portOffset",
        "0",
        "Added to the default of every port this node listens on (REST, member, Envoy, Redis and any"
            + " other front end's), so that several nodes share one host with one variable each,"
            + " e.g. 0, 10 and 20 ([Several nodes on one host](#several-nodes-on-one-host)). A port"
            + " set explicitly is used as set; a port that is off (0) stays off."),
    BIND_ADDRESS(
        "bindAddress",
        "127.0.0.1",
        "Address the REST API and the member bind to; `0.0.0.0` for all interfaces."),
    PUBLIC_ADDRESS(
        "publicAddress",
        "",
        "Address other members use to reach this one, when it is not the bind address (e.g. behind NAT)."),
    DISCOVERY(
        "discovery",
        "tcp-ip",
        "How members find each other: `tcp-ip`, `kubernetes-dns` or `kubernetes-api`."),
    MEMBERS(
        "members",
        "",
        "tcp-ip: comma-separated `host:port` list of members (a YAML list in the file); empty: this member alone."),
    KUBERNETES_SERVICE_DNS(
        "kubernetesServiceDns",
        "",
        "kubernetes-dns: DNS name of the headless Service, e.g. `sluice-hs.default.svc.cluster.local`."),
    KUBERNETES_NAMESPACE(
        "kubernetesNamespace",
        "",
        "kubernetes-api: namespace to look in (default: the pod's own)."),
    KUBERNETES_SERVICE_NAME(
        "kubernetesServiceName",
        "",
        "kubernetes-api: Service whose endpoints are members (default: every pod in the namespace)."),
    RULES_FILE(
        "rulesFile",
        "grid-node/rules.yaml",
        "Rules file, hot-reloaded; relative paths in the config file are relative to it. Default: `grid-node/rules.yaml`, else `rules.yaml` in the working directory, else the copy bundled in the jar."),
    RULES_RELOAD_INTERVAL(
        "rulesReloadInterval",
        "1s",
        "How often the rules file is checked for changes (100ms to 1h)."),
    ADMIN_TOKEN(
        "adminToken",
        "",
        "Bearer token for admin routes (PUT/DELETE rules, DELETE limits). Empty: admin routes are open, allowed only on a loopback bind or with `insecure`."),
    BACKUP_COUNT(
        "backupCount",
        "1",
        "Synchronous backups of every counter (0 to 6): with 1, losing one member loses no counts."),
    INSECURE(
        "insecure",
        "false",
        "Allow an empty admin token on a non-loopback bind (also `--insecure`)."),
    FAILURE_POLICY(
        "failurePolicy",
        "fail-open",
        "Client mode: how a check is answered when the grid does not answer within `callTimeout`:"
            + " `fail-open` (200, allowed) or `fail-closed` (429); the answer says `decidedBy`."
            + " Ignored, with a warning, in member mode."),
    FAILURE_POLICIES(
        "failurePolicies",
        "",
        "Client mode: rules with their own failure policy, e.g. `login=fail-closed,sms=fail-closed`"
            + " (a YAML mapping `{login: fail-closed}` in the file)."),
    CALL_TIMEOUT(
        "callTimeout",
        Durations.format(SluiceClient.DEFAULT_CALL_TIMEOUT),
        "Client mode: how long a check waits for the grid before the failure policy answers"
            + " (1ms to 1m)."),
    RLS_PORT(
        "rlsPort",
        "8081",
        "Port of the Envoy rate limit service: gRPC `envoy.service.ratelimit.v3.RateLimitService`"
            + " ([envoy.md](envoy.md)); 0 turns it off."),
    ENVOY_CONFIG(
        "envoyConfig",
        "",
        "envoyproxy/ratelimit config: a YAML file, or a directory of them (`*.yaml`, `*.yml`; one"
            + " domain each), hot-reloaded like the rules file; relative paths in the config file"
            + " are relative to it. Empty: no domains, every request is answered OK."),
    ENVOY_SHADOW_MODE(
        "envoyShadowMode",
        "false",
        "Envoy front end: count and report as usual, but answer OK even when over a limit (the"
            + " peer's `SHADOW_MODE`)."),
    ENVOY_HEADERS(
        "envoyHeaders",
        "ratelimit,retry-after",
        "Envoy front end: headers Envoy adds to its response, any of `ratelimit` (IETF `RateLimit`,"
            + " `RateLimit-Policy`), `x-ratelimit` (`X-RateLimit-Limit`, `-Remaining`, `-Reset`),"
            + " `retry-after` (when over the limit), comma-separated (a YAML list in the file);"
            + " `none` for none."),
    RESP_PORT(
        "respPort",
        "6380",
        "Port of the Redis protocol (RESP2 and RESP3): `CL.THROTTLE`, `GCRA` and `SLUICE.*` for"
            + " any Redis client ([resp.md](resp.md)); 0 turns it off."),
    REGION(
        "region",
        "",
        "This node's region: the name a global rule's `localShares` use"
            + " ([multi-region.md](multi-region.md)). Empty: the cluster name."),
    HOME_MEMBERS(
        "homeMembers",
        "",
        "Member mode: comma-separated `host:port` list of the home grid's members (a YAML list in"
            + " the file), which counts global rules for every region. Empty: no home (a"
            + " standalone grid, or home itself)."),
    HOME_CLUSTER_NAME(
        "homeClusterName",
        "sluice-home",
        "The home grid's cluster name; not this node's own `clusterName`."),
    HOME_TIMEOUT(
        "homeTimeout",
        "250ms",
        "How long a global rule's check that the region holds no budget for waits for home before"
            + " the rule's `onHomeUnreachable` answers (1ms to 1m).");

    private final String key;
    private final String defaultValue;
    private final String description;

    Setting(String key, String defaultValue, String description) {
      this.key = key;
      this.defaultValue = defaultValue;
      this.description = description;
    }

    /** The YAML key, e.g. {@code restPort}. */
    public String key() {
      return key;
    }

    /** The environment variable, e.g. {@code SLUICE_REST_PORT}. */
    public String environmentVariable() {
      return "SLUICE_" + name();
    }

    /** The default as text; empty: none. */
    public String defaultValue() {
      return defaultValue;
    }

    public String description() {
      return description;
    }
  }

  /** Every environment variable a node reads, in {@link Setting} order. */
  public static final List<String> ENVIRONMENT_VARIABLES =
      Arrays.stream(Setting.values()).map(Setting::environmentVariable).toList();

  private static final Pattern CLUSTER_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern HOST_PORT =
      Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[^\\s:,\\[\\]]+):(\\d{1,5})");

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
    Map<Setting, Raw> raw = new EnumMap<>(Setting.class);
    if (configFile != null) {
      readFile(configFile, raw);
    }
    for (Setting setting : Setting.values()) {
      String value = environment.get(setting.environmentVariable());
      if (value != null && !value.isBlank()) {
        raw.put(
            setting,
            new Raw(
                value.trim(),
                null,
                null,
                new Named("environment variable " + setting.environmentVariable()),
                null));
      }
    }
    return new Reader(raw).settings();
  }

  /** Whether {@code address} is a loopback address: only this machine can reach it. */
  public boolean bindsLoopbackOnly() {
    String address = bindAddress.toLowerCase(Locale.ROOT);
    return address.startsWith("127.")
        || address.equals("localhost")
        || address.equals("::1")
        || address.equals("[::1]");
  }

  /** These settings with {@code insecure} on ({@code --insecure}). */
  public NodeSettings withInsecure() {
    return new NodeSettings(
        mode,
        clusterName,
        restPort,
        memberPort,
        bindAddress,
        publicAddress,
        discovery,
        members,
        kubernetesServiceDns,
        kubernetesNamespace,
        kubernetesServiceName,
        rulesFile,
        rulesReloadInterval,
        adminToken,
        backupCount,
        true,
        failurePolicy,
        failurePolicies,
        callTimeout,
        rlsPort,
        envoyConfig,
        envoyShadowMode,
        envoyHeaders,
        respPort,
        region,
        home);
  }

  /** Whether admin routes need a token. */
  public boolean hasAdminToken() {
    return adminToken != null && !adminToken.isEmpty();
  }

  /** Never prints the admin token. */
  @Override
  public String toString() {
    return "NodeSettings[mode="
        + mode.wireName()
        + ", clusterName="
        + clusterName
        + ", restPort="
        + restPort
        + ", memberPort="
        + memberPort
        + ", bindAddress="
        + bindAddress
        + ", publicAddress="
        + publicAddress
        + ", discovery="
        + discovery.wireName()
        + ", members="
        + members
        + ", kubernetesServiceDns="
        + kubernetesServiceDns
        + ", kubernetesNamespace="
        + kubernetesNamespace
        + ", kubernetesServiceName="
        + kubernetesServiceName
        + ", rulesFile="
        + (rulesFile == null ? "<default>" : rulesFile)
        + ", rulesReloadInterval="
        + Durations.format(rulesReloadInterval)
        + ", adminToken="
        + (hasAdminToken() ? "<set>" : "<none>")
        + ", backupCount="
        + backupCount
        + ", insecure="
        + insecure
        + ", failurePolicy="
        + wireName(failurePolicy)
        + ", failurePolicies="
        + failurePolicies.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + wireName(e.getValue()))
            .collect(Collectors.joining(",", "{", "}"))
        + ", callTimeout="
        + Durations.format(callTimeout)
        + ", rlsPort="
        + rlsPort
        + ", envoyConfig="
        + (envoyConfig == null ? "<none>" : envoyConfig)
        + ", envoyShadowMode="
        + envoyShadowMode
        + ", envoyHeaders="
        + envoyHeaders.stream()
            .sorted()
            .map(EnvoyHeader::wireName)
            .collect(Collectors.joining(",", "{", "}"))
        + ", respPort="
        + respPort
        + ", home="
        + (home == null
            ? "<none>"
            : home.region() + " -> " + home.homeClusterName() + home.homeMembers())
        + "]";
  }

  /** {@code fail-open} or {@code fail-closed}, as the settings spell them. */
  public static String wireName(FailurePolicy policy) {
    return policy.name().toLowerCase(Locale.ROOT).replace('_', '-');
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

  /**
   * A value as given, before conversion.
   *
   * @param text the scalar, or null for a list or mapping
   * @param list the list items (YAML list), or null
   * @param mapping the entries of a YAML mapping (only {@code failurePolicies} takes one), or null
   * @param origin where it came from, for error messages
   * @param baseDirectory the config file's directory, for relative paths; null from the environment
   */
  private record Raw(
      @Nullable String text,
      @Nullable List<String> list,
      @Nullable Map<String, String> mapping,
      Origin origin,
      @Nullable Path baseDirectory) {}

  /** Where a value came from, which an error about it names first. */
  private sealed interface Origin {
    /**
     * The message of a problem with the value of {@code key}, or with its mapping's {@code entry}
     * (a rule of {@code failurePolicies}).
     */
    String problem(String key, @Nullable String entry, String problem);
  }

  /** The config file: errors name its line and column and the setting's path in it. */
  private record FromFile(YamlLocations locations) implements Origin {
    @Override
    public String problem(String key, @Nullable String entry, String problem) {
      return locations.problem(entry == null ? key : key + "." + entry, problem).getMessage();
    }
  }

  /** An environment variable, or the default when neither file nor environment gives one. */
  private record Named(String origin) implements Origin {
    @Override
    public String problem(String key, @Nullable String entry, String problem) {
      return origin + ": " + key + ": " + (entry == null ? "" : entry + ": ") + problem;
    }
  }

  /**
   * One value of the config file exactly as written: a scalar's text ({@code 0123}, {@code 1.10}
   * and {@code yes} stay what they are, where a YAML number or boolean would not), a list's items,
   * or a mapping's entries. The file is converted and validated by the same code as the
   * environment, which is text. An item or entry that is itself a list or mapping is null, for
   * {@link #readFile} to refuse by name.
   */
  @JsonDeserialize(using = WrittenReader.class)
  private record Written(
      @Nullable String text,
      @Nullable List<@Nullable String> items,
      @Nullable Map<String, @Nullable String> entries) {}

  /** Reads a {@link Written}: never fails, so that {@link #readFile} says what is wrong. */
  private static final class WrittenReader extends StdDeserializer<Written> {
    private static final long serialVersionUID = 1L;

    WrittenReader() {
      super(Written.class);
    }

    @Override
    public Written deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      JsonToken token = parser.currentToken();
      if (token == JsonToken.START_ARRAY) {
        List<@Nullable String> items = new ArrayList<>();
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
          items.add(plain(parser, token, false));
        }
        return new Written(null, items, null);
      }
      if (token == JsonToken.START_OBJECT) {
        Map<String, @Nullable String> entries = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String key = parser.currentName();
          token = parser.nextToken();
          entries.put(key, plain(parser, token, true));
        }
        return new Written(null, null, entries);
      }
      return new Written(parser.getText(), null, null);
    }

    /**
     * A scalar's text, or null for a list or mapping. A YAML null reads as written ({@code ~}, so
     * that {@code members: [~]} is refused as no host:port), or as empty text if {@code
     * nullIsEmpty} ({@code login:} with nothing after it).
     */
    private static @Nullable String plain(JsonParser parser, JsonToken token, boolean nullIsEmpty)
        throws IOException {
      if (token.isStructStart()) {
        parser.skipChildren();
        return null;
      }
      String text = parser.getText();
      return token == JsonToken.VALUE_NULL && (nullIsEmpty || text == null) ? "" : text;
    }

    /** {@code restPort:} with nothing after it: empty text, as in the environment. */
    @Override
    public Written getNullValue(DeserializationContext context) {
      return new Written("", null, null);
    }
  }

  /** The config file as written, by key. */
  private static final class FileValues extends LinkedHashMap<String, Written> {
    private static final long serialVersionUID = 1L;
  }

  /**
   * Reads {@code file} through {@link StrictYaml} (which refuses what is not YAML, a key given
   * twice and a second document) into {@code raw}: every key must be a {@link Setting}'s, and every
   * value a plain one, a list of plain ones, or (for {@code failurePolicies}) a mapping of them. An
   * empty file sets nothing.
   */
  private static void readFile(Path file, Map<Setting, Raw> raw) {
    try {
      String text = StrictYaml.readText(file);
      YamlLocations locations = YamlLocations.index(file.toString(), text);
      if (locations.root() == null) {
        return; // an empty file: every setting from the environment or its default
      }
      if (locations.root() != JsonToken.START_OBJECT) {
        throw locations.problem(
            "", "expected a mapping of settings (key: value), found " + locations.found(""));
      }
      FileValues values = StrictYaml.parse(locations, text, FileValues.class).value();
      Origin origin = new FromFile(locations);
      Path base = file.toAbsolutePath().getParent();
      for (Map.Entry<String, Written> entry : values.entrySet()) {
        String key = entry.getKey();
        Setting setting = byKey(key);
        if (setting == null) {
          throw locations.keyProblem(
              key,
              "unknown setting; the settings are: "
                  + keys()
                  + StrictYaml.suggestion(
                      key, Arrays.stream(Setting.values()).map(Setting::key).toList()));
        }
        Written value = entry.getValue();
        if (value.items() != null) {
          for (int i = 0; i < value.items().size(); i++) {
            if (value.items().get(i) == null) {
              throw locations.problem(key + "[" + i + "]", "list items must be plain values");
            }
          }
        }
        if (value.entries() != null) {
          if (setting != Setting.FAILURE_POLICIES) {
            throw locations.problem(key, "must be a plain value, not a mapping");
          }
          for (Map.Entry<String, @Nullable String> policy : value.entries().entrySet()) {
            if (policy.getValue() == null) {
              throw locations.problem(
                  key + "." + policy.getKey(),
                  "must be fail-open or fail-closed, not a list or mapping");
            }
          }
        }
        // No item or entry is null past the checks above.
        raw.put(setting, new Raw(value.text(), value.items(), value.entries(), origin, base));
      }
    } catch (ConfigFileException e) {
      throw new NodeConfigException(e.getMessage(), e);
    }
  }

  private static @Nullable Setting byKey(String key) {
    for (Setting setting : Setting.values()) {
      if (setting.key.equals(key)) {
        return setting;
      }
    }
    return null;
  }

  private static String keys() {
    return Arrays.stream(Setting.values()).map(Setting::key).collect(Collectors.joining(", "));
  }

  /** Converts and validates raw values, naming the source of any bad one. */
  private static final class Reader {
    private final Map<Setting, Raw> raw;

    /** {@link Setting#PORT_OFFSET}, read first: every default port is shifted by it. */
    private long portOffset;

    Reader(Map<Setting, Raw> raw) {
      this.raw = raw;
    }

    NodeSettings settings() {
      portOffset = number(Setting.PORT_OFFSET);
      if (portOffset < 0 || portOffset > 65_535) {
        throw bad(Setting.PORT_OFFSET, "must be between 0 and 65535, was " + portOffset);
      }
      String clusterName = name(Setting.CLUSTER_NAME, text(Setting.CLUSTER_NAME));
      int restPort = port(Setting.REST_PORT, 0);
      int memberPort = port(Setting.MEMBER_PORT, 1);
      String bindAddress = text(Setting.BIND_ADDRESS);
      if (bindAddress.isEmpty() || bindAddress.contains(" ")) {
        throw bad(
            Setting.BIND_ADDRESS,
            "must be an address such as 127.0.0.1 or 0.0.0.0, was '" + bindAddress + "'");
      }
      Discovery discovery = discovery();
      List<String> members = members();
      String serviceDns = optional(Setting.KUBERNETES_SERVICE_DNS);
      if (discovery == Discovery.KUBERNETES_DNS && serviceDns == null) {
        throw bad(
            Setting.DISCOVERY,
            "kubernetes-dns needs kubernetesServiceDns (SLUICE_KUBERNETES_SERVICE_DNS), the headless"
                + " Service's DNS name");
      }
      if (discovery != Discovery.TCP_IP && !members.isEmpty()) {
        throw bad(
            Setting.MEMBERS, "is for tcp-ip discovery only; discovery is " + discovery.wireName());
      }
      Duration reload =
          duration(Setting.RULES_RELOAD_INTERVAL, Duration.ofMillis(100), Duration.ofHours(1));
      long backups = number(Setting.BACKUP_COUNT);
      if (backups < 0 || backups > 6) {
        throw bad(
            Setting.BACKUP_COUNT, "must be between 0 and 6 (Hazelcast's limit), was " + backups);
      }
      Mode mode = mode();
      if (mode == Mode.CLIENT && discovery == Discovery.TCP_IP && members.isEmpty()) {
        throw bad(
            Setting.MEMBERS,
            "client mode connects to a remote grid: list its members (host:port, comma-separated)");
      }
      Duration callTimeout =
          duration(Setting.CALL_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(1));
      return new NodeSettings(
          mode,
          clusterName,
          restPort,
          memberPort,
          bindAddress,
          optional(Setting.PUBLIC_ADDRESS),
          discovery,
          members,
          serviceDns,
          optional(Setting.KUBERNETES_NAMESPACE),
          optional(Setting.KUBERNETES_SERVICE_NAME),
          rulesFile(),
          reload,
          optional(Setting.ADMIN_TOKEN),
          (int) backups,
          bool(Setting.INSECURE),
          failurePolicy(Setting.FAILURE_POLICY, text(Setting.FAILURE_POLICY), null),
          failurePolicies(),
          callTimeout,
          port(Setting.RLS_PORT, 0),
          path(Setting.ENVOY_CONFIG),
          bool(Setting.ENVOY_SHADOW_MODE),
          envoyHeaders(),
          port(Setting.RESP_PORT, 0),
          region(clusterName),
          home(mode, region(clusterName)));
    }

    /** {@code value}, a cluster's or region's name: {@code [A-Za-z0-9_.-]{1,64}}. */
    private String name(Setting setting, String value) {
      if (!CLUSTER_NAME.matcher(value).matches()) {
        throw bad(
            setting,
            "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' and '-', was '" + value + "'");
      }
      return value;
    }

    /** This node's region: as set, or the cluster's name. */
    private String region(String clusterName) {
      String region = optional(Setting.REGION);
      if (region == null) {
        return clusterName;
      }
      return name(Setting.REGION, region);
    }

    /** The region's link to home, if {@code homeMembers} is set. */
    private RegionLink.@Nullable Settings home(Mode mode, String region) {
      List<String> homeMembers = hostPorts(Setting.HOME_MEMBERS);
      if (homeMembers.isEmpty()) {
        return null;
      }
      if (mode == Mode.CLIENT) {
        throw bad(
            Setting.HOME_MEMBERS,
            "is a member's setting: a client-mode node sends global rules' checks to its region's"
                + " members, which hold the link to home; set it on them");
      }
      String homeCluster = name(Setting.HOME_CLUSTER_NAME, text(Setting.HOME_CLUSTER_NAME));
      if (homeCluster.equals(text(Setting.CLUSTER_NAME))) {
        throw bad(
            Setting.HOME_CLUSTER_NAME,
            "is this node's own clusterName: a region is a cluster of its own, home another");
      }
      return new RegionLink.Settings(
          region,
          homeCluster,
          homeMembers,
          duration(Setting.HOME_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(1)));
    }

    /** {@code ratelimit,retry-after}, a YAML list of the same, or {@code none}. */
    private Set<EnvoyHeader> envoyHeaders() {
      Setting setting = Setting.ENVOY_HEADERS;
      Raw value = raw.get(setting);
      List<String> items =
          value != null && value.list() != null
              ? value.list()
              : Arrays.asList(text(setting).split(","));
      Set<EnvoyHeader> headers = EnumSet.noneOf(EnvoyHeader.class);
      for (String item : items) {
        String name = item.trim();
        if (name.isEmpty() || (name.equalsIgnoreCase("none") && items.size() == 1)) {
          continue;
        }
        headers.add(
            EnvoyHeader.fromWireName(name)
                .orElseThrow(
                    () ->
                        bad(
                            setting,
                            "'"
                                + name
                                + "' is not a header family; use any of "
                                + EnvoyHeader.NAMES
                                + ", comma-separated, or none")));
      }
      return headers;
    }

    /** {@code text} as a failure policy; {@code rule}: the rule it is for, or null for all. */
    private FailurePolicy failurePolicy(Setting setting, String text, @Nullable String rule) {
      for (FailurePolicy policy : FailurePolicy.values()) {
        if (wireName(policy).equalsIgnoreCase(text.trim())) {
          return policy;
        }
      }
      throw bad(setting, rule, "must be fail-open or fail-closed, was '" + text.trim() + "'");
    }

    /**
     * {@code rule=policy} pairs: a YAML mapping in the file, or {@code login=fail-closed,sms=...}
     * in the environment (or as one YAML string).
     */
    private Map<String, FailurePolicy> failurePolicies() {
      Setting setting = Setting.FAILURE_POLICIES;
      Raw value = raw.get(setting);
      if (value == null) {
        return Map.of();
      }
      Map<String, String> entries;
      if (value.mapping() != null) {
        entries = value.mapping();
      } else if (value.list() != null) {
        throw bad(setting, "must be a mapping of rule: policy, e.g. {login: fail-closed}");
      } else {
        entries = new LinkedHashMap<>();
        for (String item : value.text().split(",")) {
          String pair = item.trim();
          if (pair.isEmpty()) {
            continue;
          }
          int eq = pair.indexOf('=');
          if (eq < 0) {
            throw bad(
                setting,
                "'" + pair + "' is not rule=policy (e.g. login=fail-closed,sms=fail-closed)");
          }
          String rule = pair.substring(0, eq).trim();
          if (entries.put(rule, pair.substring(eq + 1).trim()) != null) {
            throw bad(setting, rule, "appears twice");
          }
        }
      }
      Map<String, FailurePolicy> policies = new LinkedHashMap<>();
      for (Map.Entry<String, String> entry : entries.entrySet()) {
        String rule = entry.getKey();
        try {
          Rule.checkName(rule);
        } catch (InvalidPolicyException e) {
          throw bad(
              setting,
              "'" + rule + "' is not a rule name (1 to 64 of A-Z, a-z, 0-9, '_', '.', '-')");
        }
        policies.put(rule, failurePolicy(setting, entry.getValue(), rule));
      }
      return policies;
    }

    private String text(Setting setting) {
      Raw value = raw.get(setting);
      if (value == null) {
        return setting.defaultValue;
      }
      if (value.text() == null) {
        throw bad(setting, "must be a single value, not a list");
      }
      return value.text().trim();
    }

    private @Nullable String optional(Setting setting) {
      Raw value = raw.get(setting);
      if (value == null) {
        return null;
      }
      String text = text(setting);
      return text.isEmpty() ? null : text;
    }

    private long number(Setting setting) {
      String text = text(setting);
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw bad(setting, "must be a whole number, was '" + text + "'");
      }
    }

    /**
     * A port setting: every port a node listens on is read here, so each one's default moves with
     * {@link Setting#PORT_OFFSET} by construction, a front end added later included. A value given
     * in the file or the environment is taken as given; a default of 0 (off, or any free port)
     * stays 0.
     */
    private int port(Setting setting, int min) {
      String text = text(setting);
      long port;
      try {
        port = Long.parseLong(text);
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < min || port > 65_535) {
        throw bad(setting, "must be a port number from " + min + " to 65535, was '" + text + "'");
      }
      if (raw.get(setting) == null && port != 0 && portOffset != 0) {
        port += portOffset;
        if (port > 65_535) {
          throw bad(
              Setting.PORT_OFFSET,
              "moves the default "
                  + setting.key
                  + " "
                  + setting.defaultValue
                  + " to "
                  + port
                  + ", beyond 65535");
        }
      }
      return (int) port;
    }

    private boolean bool(Setting setting) {
      String text = text(setting).toLowerCase(Locale.ROOT);
      return switch (text) {
        case "true" -> true;
        case "false" -> false;
        default -> throw bad(setting, "must be true or false, was '" + text(setting) + "'");
      };
    }

    private Duration duration(Setting setting) {
      String text = text(setting);
      try {
        return Durations.parse(setting.key, text);
      } catch (InvalidPolicyException e) {
        throw bad(setting, e.getMessage().substring(setting.key.length() + 2));
      }
    }

    /** {@link #duration(Setting)}, refused outside {@code [min, max]}. */
    private Duration duration(Setting setting, Duration min, Duration max) {
      Duration value = duration(setting);
      if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
        throw bad(
            setting,
            "must be between "
                + Durations.format(min)
                + " and "
                + Durations.format(max)
                + ", was "
                + Durations.format(value));
      }
      return value;
    }

    private Mode mode() {
      String text = text(Setting.MODE);
      for (Mode mode : Mode.values()) {
        if (mode.wireName.equalsIgnoreCase(text)) {
          return mode;
        }
      }
      throw bad(Setting.MODE, "must be member or client, was '" + text + "'");
    }

    private Discovery discovery() {
      String text = text(Setting.DISCOVERY);
      for (Discovery discovery : Discovery.values()) {
        if (discovery.wireName.equalsIgnoreCase(text)) {
          return discovery;
        }
      }
      throw bad(
          Setting.DISCOVERY,
          "must be one of "
              + Arrays.stream(Discovery.values())
                  .map(Discovery::wireName)
                  .collect(Collectors.joining(", "))
              + ", was '"
              + text
              + "'");
    }

    private List<String> members() {
      return hostPorts(Setting.MEMBERS);
    }

    /** A list of {@code host:port}, comma-separated (a YAML list in the file). */
    private List<String> hostPorts(Setting setting) {
      Raw value = raw.get(setting);
      List<String> items;
      if (value == null) {
        items = List.of();
      } else if (value.list() != null) {
        items = value.list();
      } else {
        items = Arrays.asList(value.text().split(","));
      }
      List<String> members = new ArrayList<>();
      for (String item : items) {
        String member = item.trim();
        if (member.isEmpty()) {
          continue;
        }
        var match = HOST_PORT.matcher(member);
        if (!match.matches()
            || Integer.parseInt(match.group(2)) < 1
            || Integer.parseInt(match.group(2)) > 65_535) {
          throw bad(setting, "'" + member + "' is not host:port (e.g. 10.0.0.5:5701)");
        }
        members.add(member);
      }
      return List.copyOf(members);
    }

    private @Nullable Path rulesFile() {
      return path(Setting.RULES_FILE);
    }

    /** A path setting; relative paths in the config file are relative to the file. */
    private @Nullable Path path(Setting setting) {
      Raw value = raw.get(setting);
      if (value == null) {
        return null;
      }
      String text = text(setting);
      if (text.isEmpty()) {
        return null;
      }
      Path path = Path.of(text);
      if (!path.isAbsolute() && value.baseDirectory() != null) {
        path = value.baseDirectory().resolve(path);
      }
      return path.normalize();
    }

    private NodeConfigException bad(Setting setting, String problem) {
      return bad(setting, null, problem);
    }

    /** A problem with {@code setting}'s value, or with its entry {@code entry}, named by origin. */
    private NodeConfigException bad(Setting setting, @Nullable String entry, String problem) {
      Raw value = raw.get(setting);
      Origin origin = value == null ? new Named("default") : value.origin();
      return new NodeConfigException(origin.problem(setting.key, entry, problem));
    }
  }
}
