package dev.sluice.node;

import dev.sluice.client.FailurePolicy;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Rule;
import dev.sluice.core.config.LayeredSettings;
import dev.sluice.core.grid.RegionLink;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import dev.sluice.node.NodeSettings.Discovery;
import dev.sluice.node.NodeSettings.Mode;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@link NodeSettings} from the layered {@link Setting}s: what each setting converts to, and
 * the checks that only a node knows (every default port moved by {@code portOffset}, {@code
 * host:port} lists, settings that need or exclude each other). Every refusal is the source's {@link
 * LayeredSettings#problem}, so it names the file, line and column or the variable.
 */
final class NodeSettingsReader {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Pattern HOST_PORT =
      Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[^\\s:,\\[\\]]+):(\\d{1,5})");
  private static final List<FailurePolicy> FAILURE_POLICIES = List.of(FailurePolicy.values());

  private final LayeredSettings source;

  /** {@link Setting#PORT_OFFSET}, read first: every default port is shifted by it. */
  private final long portOffset;

  private NodeSettingsReader(LayeredSettings source) {
    this.source = source;
    this.portOffset = source.wholeNumber(Setting.PORT_OFFSET, 0, 65_535);
  }

  static NodeSettings read(LayeredSettings source) {
    return new NodeSettingsReader(source).settings();
  }

  private NodeSettings settings() {
    String clusterName = name(Setting.CLUSTER_NAME, source.text(Setting.CLUSTER_NAME));
    int restPort = port(Setting.REST_PORT, 0);
    int memberPort = port(Setting.MEMBER_PORT, 1);
    String bindAddress = source.text(Setting.BIND_ADDRESS);
    if (bindAddress.isEmpty() || bindAddress.contains(" ")) {
      throw source.problem(
          Setting.BIND_ADDRESS,
          "must be an address such as 127.0.0.1 or 0.0.0.0, was '" + bindAddress + "'");
    }
    Discovery discovery =
        source.choice(Setting.DISCOVERY, List.of(Discovery.values()), NodeSettings::wireName);
    List<String> members = hostPorts(Setting.MEMBERS);
    String serviceDns = source.optional(Setting.KUBERNETES_SERVICE_DNS);
    if (discovery == Discovery.KUBERNETES_DNS && serviceDns == null) {
      throw source.problem(
          Setting.DISCOVERY,
          "kubernetes-dns needs kubernetesServiceDns (SLUICE_KUBERNETES_SERVICE_DNS), the headless"
              + " Service's DNS name");
    }
    if (discovery != Discovery.TCP_IP && !members.isEmpty()) {
      throw source.problem(
          Setting.MEMBERS, "is for tcp-ip discovery only; discovery is " + discovery.wireName());
    }
    Duration reload =
        source.duration(Setting.RULES_RELOAD_INTERVAL, Duration.ofMillis(100), Duration.ofHours(1));
    long backups = source.wholeNumber(Setting.BACKUP_COUNT, 0, 6); // Hazelcast's limit
    Mode mode = source.choice(Setting.MODE, List.of(Mode.values()), NodeSettings::wireName);
    if (mode == Mode.CLIENT && discovery == Discovery.TCP_IP && members.isEmpty()) {
      throw source.problem(
          Setting.MEMBERS,
          "client mode connects to a remote grid: list its members (host:port, comma-separated)");
    }
    Duration callTimeout =
        source.duration(Setting.CALL_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(1));
    String region = region(clusterName);
    return new NodeSettings(
        mode,
        clusterName,
        restPort,
        memberPort,
        bindAddress,
        source.optional(Setting.PUBLIC_ADDRESS),
        discovery,
        members,
        serviceDns,
        source.optional(Setting.KUBERNETES_NAMESPACE),
        source.optional(Setting.KUBERNETES_SERVICE_NAME),
        source.path(Setting.RULES_FILE),
        reload,
        source.optional(Setting.ADMIN_TOKEN),
        (int) backups,
        source.bool(Setting.INSECURE),
        source.choice(Setting.FAILURE_POLICY, FAILURE_POLICIES, NodeSettings::wireName),
        failurePolicies(),
        callTimeout,
        port(Setting.RLS_PORT, 0),
        source.path(Setting.ENVOY_CONFIG),
        source.bool(Setting.ENVOY_SHADOW_MODE),
        envoyHeaders(),
        port(Setting.RESP_PORT, 0),
        region,
        home(mode, clusterName, region));
  }

  /** {@code value}, a cluster's or region's name: {@code [A-Za-z0-9_.-]{1,64}}. */
  private String name(Setting setting, String value) {
    if (!NAME.matcher(value).matches()) {
      throw source.problem(
          setting,
          "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' and '-', was '" + value + "'");
    }
    return value;
  }

  /** This node's region: as set, or the cluster's name. */
  private String region(String clusterName) {
    String region = source.optional(Setting.REGION);
    return region == null ? clusterName : name(Setting.REGION, region);
  }

  /** The region's link to home, if {@code homeMembers} is set. */
  private RegionLink.@Nullable Settings home(Mode mode, String clusterName, String region) {
    List<String> homeMembers = hostPorts(Setting.HOME_MEMBERS);
    if (homeMembers.isEmpty()) {
      return null;
    }
    if (mode == Mode.CLIENT) {
      throw source.problem(
          Setting.HOME_MEMBERS,
          "is a member's setting: a client-mode node sends global rules' checks to its region's"
              + " members, which hold the link to home; set it on them");
    }
    String homeCluster = name(Setting.HOME_CLUSTER_NAME, source.text(Setting.HOME_CLUSTER_NAME));
    if (homeCluster.equals(clusterName)) {
      throw source.problem(
          Setting.HOME_CLUSTER_NAME,
          "is this node's own clusterName: a region is a cluster of its own, home another");
    }
    return new RegionLink.Settings(
        region,
        homeCluster,
        homeMembers,
        source.duration(Setting.HOME_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(1)));
  }

  /**
   * {@code ratelimit,retry-after}, a YAML list of the same, or {@code none}: the header families
   * ({@code x-ratelimit} is {@link Family#X_RATELIMIT}) the Envoy front end asks Envoy to add.
   */
  private Set<Family> envoyHeaders() {
    List<String> names = source.items(Setting.ENVOY_HEADERS);
    Set<Family> headers = EnumSet.noneOf(Family.class);
    if (names.size() == 1 && names.get(0).equalsIgnoreCase("none")) {
      return headers;
    }
    List<String> known = Arrays.stream(Family.values()).map(NodeSettings::wireName).toList();
    for (String name : names) {
      int index = known.indexOf(name.toLowerCase(Locale.ROOT));
      if (index < 0) {
        throw source.problem(
            Setting.ENVOY_HEADERS,
            "'"
                + name
                + "' is not a header family; use any of "
                + String.join(", ", known)
                + ", comma-separated, or none");
      }
      headers.add(Family.values()[index]);
    }
    return headers;
  }

  /** {@code {login: fail-closed}} in the file, {@code login=fail-closed,sms=...} as text. */
  private Map<String, FailurePolicy> failurePolicies() {
    Map<String, FailurePolicy> policies =
        source.entries(
            Setting.FAILURE_POLICIES,
            "rule=policy",
            "login=fail-closed,sms=fail-closed",
            FAILURE_POLICIES,
            NodeSettings::wireName);
    for (String rule : policies.keySet()) {
      try {
        Rule.checkName(rule);
      } catch (InvalidPolicyException e) {
        throw source.problem(
            Setting.FAILURE_POLICIES,
            "'" + rule + "' is not a rule name (1 to 64 of A-Z, a-z, 0-9, '_', '.', '-')");
      }
    }
    return policies;
  }

  /**
   * A port setting: every port a node listens on is read here, so each one's default moves with
   * {@link Setting#PORT_OFFSET} by construction, a front end added later included. A value given in
   * the file or the environment is taken as given; a default of 0 (off, or any free port) stays 0.
   */
  private int port(Setting setting, int min) {
    String text = source.text(setting);
    long port;
    try {
      port = Long.parseLong(text);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < min || port > 65_535) {
      throw source.problem(
          setting, "must be a port number from " + min + " to 65535, was '" + text + "'");
    }
    if (!source.isSet(setting) && port != 0 && portOffset != 0) {
      port += portOffset;
      if (port > 65_535) {
        throw source.problem(
            Setting.PORT_OFFSET,
            "moves the default "
                + setting.key()
                + " "
                + setting.defaultValue()
                + " to "
                + port
                + ", beyond 65535");
      }
    }
    return (int) port;
  }

  /** A list of {@code host:port}, comma-separated (a YAML list in the file). */
  private List<String> hostPorts(Setting setting) {
    List<String> members = source.items(setting);
    for (String member : members) {
      var match = HOST_PORT.matcher(member);
      if (!match.matches()
          || Integer.parseInt(match.group(2)) < 1
          || Integer.parseInt(match.group(2)) > 65_535) {
        throw source.problem(setting, "'" + member + "' is not host:port (e.g. 10.0.0.5:5701)");
      }
    }
    return members;
  }
}
