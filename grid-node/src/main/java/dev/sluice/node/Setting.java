package dev.sluice.node;

import dev.sluice.client.SluiceClient;
import dev.sluice.core.Durations;
import dev.sluice.core.config.LayeredSettings;
import java.util.Arrays;
import java.util.List;

/**
 * Every setting of a grid node: its YAML key, its environment variable, its default and what it
 * does. The single list of keys: {@link NodeSettings} reads them, {@code docs/configuration.md}
 * documents them in one table (a test keeps the two in step).
 */
public enum Setting implements LayeredSettings.Key {
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
      "kubernetesNamespace", "", "kubernetes-api: namespace to look in (default: the pod's own)."),
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

  /** Every environment variable a node reads, in this list's order. */
  public static final List<String> ENVIRONMENT_VARIABLES =
      Arrays.stream(values()).map(Setting::environmentVariable).toList();

  private final String key;
  private final String defaultValue;
  private final String description;

  Setting(String key, String defaultValue, String description) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  @Override
  public String key() {
    return key;
  }

  /** {@code SLUICE_} and the constant's name. */
  @Override
  public String environmentVariable() {
    return "SLUICE_" + name();
  }

  @Override
  public String defaultValue() {
    return defaultValue;
  }

  /** What the setting does, as docs/configuration.md's table says it. */
  public String description() {
    return description;
  }
}
