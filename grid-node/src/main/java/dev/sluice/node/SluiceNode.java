package dev.sluice.node;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.PartitionService;
import dev.sluice.client.GridState;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Durations;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.grid.GridRateLimiter;
import dev.sluice.core.grid.GridStatsView;
import dev.sluice.core.grid.RegionLink;
import dev.sluice.core.grid.wire.GridNames;
import dev.sluice.core.lease.LeaseHolder;
import dev.sluice.core.metrics.DecisionMetrics;
import dev.sluice.core.metrics.LimitedKeysMetrics;
import dev.sluice.core.rules.RulesFile;
import dev.sluice.core.rules.RulesFileWatcher;
import dev.sluice.core.stats.LeaseTotals;
import dev.sluice.core.stats.NodeStats;
import dev.sluice.node.envoy.EnvoyFrontEnd;
import dev.sluice.node.resp.ClusterView;
import dev.sluice.node.resp.RespFrontEnd;
import dev.sluice.node.resp.RespLimits;
import dev.sluice.rest.ApiSettings;
import dev.sluice.rest.Console;
import dev.sluice.rest.ReadinessProbe;
import dev.sluice.rest.SluiceApi;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Sluice grid node: one Hazelcast member holding a share of the counters, the REST API, the Envoy
 * rate limit service and the Redis protocol in front of it, and the rules file kept in step with
 * the cluster.
 *
 * <pre>
 * java -jar grid-node/target/sluice-node.jar [--config node.yaml] [--insecure]
 * </pre>
 *
 * With no arguments: one member on 127.0.0.1 (member port 5701), REST on 8080, Envoy's rate limit
 * service on 8081, the Redis protocol on 6380, the example rules of {@code grid-node/rules.yaml}.
 * Every setting is in {@link NodeSettings}.
 *
 * <h2>Lifecycle</h2>
 *
 * Start: settings are validated (a bad one stops the node with a message naming it), the Envoy
 * config is read (a broken file stops the node, naming file, line and field), the member joins, the
 * rules file is loaded (a broken file stops the node), then the Envoy rate limit service ({@link
 * EnvoyFrontEnd}), the Redis protocol ({@link RespFrontEnd}) and the REST API open. {@code
 * /health/ready} answers 200 once the member has joined and its partitions have been safe once (all
 * backups in place); a later migration does not pull every node out of a load balancer at once.
 *
 * <h2>Client mode</h2>
 *
 * A node with {@code mode: client} holds no counters: it is a Hazelcast client of a remote grid,
 * and a {@link SluiceClient} (the Java SDK's, wrapped around the node's {@link GridRateLimiter})
 * stands between the REST API and the grid. Each check waits at most {@code callTimeout} for the
 * grid; when the grid is unreachable the rule's failure policy ({@code failurePolicy}, {@code
 * failurePolicies}) answers and the answer says so ({@code "decidedBy": "fail_open"} or {@code
 * "fail_closed"}); a circuit breaker keeps a dead grid from costing the timeout on every call, and
 * the Hazelcast client reconnects by itself when the grid is back. Members need none of this: a
 * member decides on its own partitions, or, cut off from its peers, as a cluster of its own; so
 * member mode ignores those settings (with a warning).
 *
 * <p>Every part that starts pushes its closer onto one {@link CloseStack}: a start that fails
 * closes what had started, in reverse order, and so does a stop. Stop (SIGTERM, Ctrl-C, {@link
 * #close()}): the REST API, the Redis protocol and then the Envoy rate limit service stop taking
 * requests and finish the ones in flight, then the member shuts down gracefully: it hands its
 * partitions, with their counters, to the remaining members before leaving, so no count is lost.
 */
public final class SluiceNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceNode.class);
  private static final String BUNDLED_RULES = "rules.yaml";
  private static final List<Path> DEFAULT_RULES_FILES =
      List.of(Path.of("grid-node", "rules.yaml"), Path.of("rules.yaml"));
  private static final String USAGE =
      "usage: java -jar sluice-node.jar [--config <node.yaml>] [--insecure]\n"
          + "Every setting can also be given as a SLUICE_* environment variable;"
          + " see docs/configuration.md.";

  /** How long a client-mode node's start waits for a grid that is up before it goes on without. */
  private static final java.time.Duration CLIENT_FIRST_CONNECT = java.time.Duration.ofSeconds(5);

  /** Prometheus {@code sluice_cluster_members}: what the members-missing alert compares. */
  static final String CLUSTER_MEMBERS = "sluice.cluster.members";

  /** How long the console waits for the members' stats before it lists a member as silent. */
  private static final java.time.Duration CONSOLE_GATHER_TIMEOUT = java.time.Duration.ofSeconds(2);

  private final NodeSettings settings;
  private final HazelcastInstance member;
  private final GridRateLimiter limiter;
  private final SluiceApi api;
  private final EnvoyFrontEnd envoy;
  private final @Nullable RespFrontEnd resp;
  private final CloseStack started;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SluiceNode(
      NodeSettings settings,
      HazelcastInstance member,
      GridRateLimiter limiter,
      SluiceApi api,
      EnvoyFrontEnd envoy,
      @Nullable RespFrontEnd resp,
      CloseStack started) {
    this.settings = settings;
    this.member = member;
    this.limiter = limiter;
    this.api = api;
    this.envoy = envoy;
    this.resp = resp;
    this.started = started;
  }

  public static void main(String[] args) {
    SluiceNode node;
    try {
      node = start(settingsFrom(args, System.getenv()), TimeSource.system());
    } catch (NodeConfigException | ConfigFileException e) {
      System.err.println("sluice-node: " + e.getMessage());
      System.exit(2);
      return;
    } catch (HelpRequested e) {
      System.out.println(USAGE);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(node::close, "sluice-shutdown"));
  }

  /**
   * The settings the command line and environment give.
   *
   * @throws NodeConfigException for an unknown argument or a bad setting
   */
  static NodeSettings settingsFrom(String[] args, Map<String, String> environment) {
    Path config = null;
    boolean insecure = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        throw new HelpRequested();
      } else if (arg.equals("--insecure")) {
        insecure = true;
      } else if (arg.equals("--config") && i + 1 < args.length) {
        config = Path.of(args[++i]);
      } else if (arg.startsWith("--config=")) {
        config = Path.of(arg.substring("--config=".length()));
      } else {
        throw new NodeConfigException("unknown argument '" + arg + "'\n" + USAGE);
      }
    }
    for (String warning : UnknownSluiceVariables.warnings(environment)) {
      LOG.warn(warning);
    }
    if (insecure) {
      // --insecure is SLUICE_INSECURE=true said on the command line: over the file and the rest.
      environment = new HashMap<>(environment);
      environment.put(Setting.INSECURE.environmentVariable(), "true");
    }
    return NodeSettings.load(config, environment);
  }

  /**
   * Starts a node: member, rules, REST API.
   *
   * @throws NodeConfigException if the settings are unsafe or the rules file is missing
   * @throws ConfigFileException if the rules file is broken, or the Envoy config missing or broken
   */
  public static SluiceNode start(NodeSettings settings) {
    return start(settings, TimeSource.system());
  }

  /** Starts a node whose decisions read {@code timeSource} (tests use a manual clock). */
  static SluiceNode start(NodeSettings settings, TimeSource timeSource) {
    MemberConfig.localAddress(settings.bindAddress());
    if (!settings.hasAdminToken() && !settings.bindsLoopbackOnly() && !settings.insecure()) {
      throw new NodeConfigException(
          "adminToken: is empty, but bindAddress "
              + settings.bindAddress()
              + " is not loopback: anyone who can reach port "
              + settings.restPort()
              + " could change the rules. Set SLUICE_ADMIN_TOKEN (adminToken), or pass --insecure"
              + " (SLUICE_INSECURE=true) to run without one.");
    }
    Optional<Path> rulesFile = rulesFile(settings);
    LOG.info("starting Sluice node: {}", settings);
    if (settings.envoyConfig() != null && !Files.exists(settings.envoyConfig())) {
      throw new NodeConfigException(
          "envoyConfig: "
              + settings.envoyConfig().toAbsolutePath()
              + " does not exist; name a YAML file or a directory of them");
    }
    boolean client = settings.mode() == NodeSettings.Mode.CLIENT;
    if (!client && settings.hasClientFailureSettings()) {
      LOG.warn(
          "failurePolicy, failurePolicies and callTimeout apply to client mode only; this member"
              + " decides on its own partitions and ignores them");
    }
    CloseStack started = new CloseStack();
    try {
      return start(settings, timeSource, rulesFile, started);
    } catch (RuntimeException e) {
      started.close();
      for (Throwable cause = e; cause != null; cause = cause.getCause()) {
        if (cause instanceof BindException) {
          // A port was taken after requirePortsFree looked. What started is closed now, so a port
          // still taken is the one that failed: named like any bad setting, not by a stack trace.
          requirePortsFree(settings, e);
          break;
        }
      }
      throw e;
    }
  }

  /** Starts the parts in order, each pushing its closer onto {@code started}. */
  private static SluiceNode start(
      NodeSettings settings, TimeSource timeSource, Optional<Path> rulesFile, CloseStack started) {
    boolean client = settings.mode() == NodeSettings.Mode.CLIENT;
    EnvoyFrontEnd envoy =
        started.push(
            "Envoy config watcher",
            EnvoyFrontEnd.load(settings.envoyConfig(), settings.rulesReloadInterval()),
            EnvoyFrontEnd::close);
    requirePortsFree(settings, null);
    HazelcastInstance member =
        started.push(
            client ? "Hazelcast client" : "member",
            client
                ? HazelcastClient.newHazelcastClient(MemberConfig.buildClient(settings))
                : Hazelcast.newHazelcastInstance(MemberConfig.build(settings, timeSource)),
            HazelcastInstance::shutdown);
    GridRateLimiter.Options options = GridRateLimiter.Options.defaults();
    if (timeSource != TimeSource.system()) {
      // A test's grid decides on a manual clock: leases end when that clock says so.
      options = options.withLeaseClock(timeSource::nowNanos);
    }
    RegionLink link = null;
    if (settings.home() != null && !client) {
      // Closed before the member leaves: gives the budgets held here back to home.
      link =
          started.push(
              "region link", RegionLink.install(member, settings.home()), RegionLink::close);
      LOG.info(
          "region {}: global rules are counted at home {} {}",
          settings.home().region(),
          settings.home().homeClusterName(),
          settings.home().homeMembers());
    }
    GridRateLimiter limiter =
        started.push("limiter", new GridRateLimiter(member, options), GridRateLimiter::close);
    RulesFileWatcher watcher =
        rulesFile
            .map(
                file ->
                    started.push(
                        "rules file watcher",
                        new RulesFileWatcher(file, limiter.rules(), settings.rulesReloadInterval()),
                        RulesFileWatcher::close))
            .orElse(null);
    loadRules(settings, rulesLoader(rulesFile, watcher, limiter), limiter);

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    if (watcher != null) {
      watcher.bindTo(registry);
    }
    NodeStats stats =
        started.push(
            "console stats",
            NodeStats.started(nodeName(settings, member, client)),
            NodeStats::close);
    stats.leases(leaseTotals(limiter));
    LimitedKeysMetrics.bind(stats, registry);
    if (link != null) {
      RegionLinkMetrics.bind(link, registry);
    }
    Gauge.builder(CLUSTER_MEMBERS, () -> member.getCluster().getMembers().size())
        .description(
            "Members of the grid as this node sees them (its own cluster, or the remote one)")
        .strongReference(true)
        .register(registry);
    // Every front end (REST, Envoy, Redis) decides through one limiter that counts each decision
    // once, in the registry and in the console's stats: a client-mode node's SDK client does both.
    SluiceClient front =
        client
            ? started.push(
                "client front",
                clientFront(settings, limiter, registry, timeSource, stats),
                SluiceClient::close)
            : null;
    RateLimiter decisions =
        front != null ? front : DecisionMetrics.record(limiter, registry, stats);
    EnvoyFrontEnd.Options envoyOptions =
        new EnvoyFrontEnd.Options(
            settings.bindAddress(),
            settings.rlsPort(),
            settings.envoyShadowMode(),
            settings.envoyHeaders());
    // Pushed again: the gRPC server it opens closes with the front ends, before the member leaves.
    started.push(
        "Envoy rate limit service",
        envoy.start(decisions, registry, timeSource, envoyOptions, stats.frontEnds()),
        EnvoyFrontEnd::close);
    RespFrontEnd resp = null;
    if (settings.respPort() != 0) {
      ClusterView view =
          client
              ? ClusterView.alone(advertisedHost(settings), settings.respPort())
              : ClusterView.members(member);
      RespFrontEnd.Options respOptions =
          new RespFrontEnd.Options(
              settings.bindAddress(),
              settings.respPort(),
              settings.adminToken(),
              RespLimits.defaults());
      resp =
          started.push(
              "Redis protocol",
              RespFrontEnd.start(decisions, registry, stats.frontEnds(), view, respOptions),
              RespFrontEnd::close);
    }
    SluiceApi api =
        new SluiceApi(
            decisions,
            registry,
            ApiSettings.withAdminToken(settings.adminToken()),
            front != null ? clientReadiness(member, front) : new MemberReadiness(member),
            client ? () -> 0L : () -> ownedStates(member),
            List.of(envoy.jsonRoute()),
            console(
                settings,
                member,
                client,
                stats,
                watcher,
                rulesFile.isPresent() ? List.of() : bundledRules()));
    started.push(
        "REST API", api.start(settings.bindAddress(), settings.restPort()), SluiceApi::stop);
    LOG.info(
        "Sluice node ready: REST http://{}:{}/ (try /v1/rules), Envoy RLS {}, Redis protocol {},"
            + " {} in cluster '{}' of {}",
        settings.bindAddress(),
        api.port(),
        envoy.rlsPort() == 0 ? "off" : "grpc://" + settings.bindAddress() + ":" + envoy.rlsPort(),
        resp == null ? "off" : "redis://" + settings.bindAddress() + ":" + resp.port(),
        client
            ? "client (failure policy "
                + NodeSettings.wireName(settings.failurePolicy())
                + ", call timeout "
                + Durations.format(settings.callTimeout())
                + ")"
            : "member " + member.getCluster().getLocalMember().getAddress(),
        settings.clusterName(),
        member.getCluster().getMembers().size());
    return new SluiceNode(settings, member, limiter, api, envoy, resp, started);
  }

  /**
   * Loads the rules now, or, for a client-mode node whose grid cannot be reached yet, as soon as it
   * can (checks are answered by the failure policy meanwhile).
   */
  private static void loadRules(
      NodeSettings settings, Runnable loadRules, GridRateLimiter limiter) {
    if (limiter.ready().isDone()) {
      loadRules.run();
      return;
    }
    LOG.warn(
        "mode: client, and the grid ({}) cannot be reached yet: checks are answered by the"
            + " failure policy ({}) until it can; connecting in the background",
        gridDescription(settings),
        NodeSettings.wireName(settings.failurePolicy()));
    limiter
        .ready()
        .thenRunAsync(
            () -> {
              try {
                loadRules.run();
                LOG.info("client mode: reached the grid; rules file applied");
              } catch (RuntimeException e) {
                LOG.warn(
                    "client mode: the rules could not be applied to the grid ({})", e.toString());
              }
            },
            runnable -> {
              Thread thread = new Thread(runnable, "sluice-rules-first-load");
              thread.setDaemon(true);
              thread.start();
            });
  }

  /**
   * Fails with a one-line error naming the setting if a port this node will listen on is taken:
   * checked before the member or Jetty try it, since they log their own ERROR with a stack trace
   * before throwing, which would come before our message and bury it.
   *
   * @param cause the failed bind that made a failed start check again, or null at the start
   */
  private static void requirePortsFree(NodeSettings settings, @Nullable Throwable cause) {
    Map<Setting, Integer> ports = new LinkedHashMap<>();
    if (settings.mode() == NodeSettings.Mode.MEMBER) {
      ports.put(Setting.MEMBER_PORT, settings.memberPort());
    }
    ports.put(Setting.RLS_PORT, settings.rlsPort());
    ports.put(Setting.RESP_PORT, settings.respPort());
    ports.put(Setting.REST_PORT, settings.restPort());
    ports.forEach(
        (setting, port) -> {
          if (port == 0) {
            return; // any free port (REST), or off (Envoy)
          }
          try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true); // as the member and Jetty bind: TIME_WAIT is no conflict
            probe.bind(new InetSocketAddress(settings.bindAddress(), port), 1);
          } catch (BindException e) {
            throw portInUse(setting, port, settings, cause == null ? e : cause);
          } catch (IOException e) {
            // Not a taken port: the bind itself will say what is wrong.
          }
        });
  }

  /** A port that is taken, as the one-line error of a bad setting. */
  private static NodeConfigException portInUse(
      Setting setting, int port, NodeSettings settings, Throwable cause) {
    return new NodeConfigException(
        setting.key()
            + ": port "
            + port
            + " on "
            + settings.bindAddress()
            + " is already in use; stop what holds it, or set "
            + setting.environmentVariable()
            + " to another port"
            + (setting == Setting.REST_PORT
                ? " (0: any free port)"
                : setting == Setting.RLS_PORT || setting == Setting.RESP_PORT
                    ? " (0: turns it off)"
                    : "")
            + "; several nodes on one host: give each its own "
            + Setting.PORT_OFFSET.environmentVariable(),
        cause);
  }

  /**
   * Reads the rules into the grid (the rules file, watched from then on, or the bundled examples).
   * The rules file is parsed here, before any grid call, so that a broken file stops the node at
   * start even while a client-mode node's grid is away.
   */
  private static Runnable rulesLoader(
      Optional<Path> rulesFile, @Nullable RulesFileWatcher watcher, GridRateLimiter limiter) {
    if (rulesFile.isPresent() && watcher != null) {
      try {
        RulesFile.parse(
            rulesFile.get().toString(), Files.readString(rulesFile.get(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new NodeConfigException(
            "cannot read the rules file " + rulesFile.get() + ": " + e, e);
      }
      return () -> {
        List<Rule> rules = watcher.loadInitial();
        LOG.info("rules file {}: {} rules, reloaded on change", rulesFile.get(), rules.size());
        watcher.start();
      };
    }
    List<Rule> rules = bundledRules();
    return () -> {
      for (Rule rule : rules) {
        if (!limiter.rules().find(rule.name()).equals(Optional.of(rule))) {
          limiter.rules().put(rule);
        }
      }
      LOG.warn(
          "no rules file found (looked for {}); using the {} example rules bundled in the jar,"
              + " not reloaded. Set SLUICE_RULES_FILE to use your own.",
          DEFAULT_RULES_FILES,
          rules.size());
    };
  }

  /** The grid a client-mode node connects to, for messages. */
  private static String gridDescription(NodeSettings settings) {
    return "cluster '"
        + settings.clusterName()
        + "', "
        + (settings.discovery() == NodeSettings.Discovery.TCP_IP
            ? "members " + settings.members()
            : settings.discovery().wireName() + " discovery");
  }

  /** The node's name in the console: the member's address, or a client-mode node's REST address. */
  private static String nodeName(NodeSettings settings, HazelcastInstance member, boolean client) {
    if (client) {
      return "client " + settings.bindAddress() + ":" + settings.restPort();
    }
    InetSocketAddress address = member.getCluster().getLocalMember().getSocketAddress();
    return address.getHostString() + ":" + address.getPort();
  }

  private static Supplier<LeaseTotals> leaseTotals(GridRateLimiter limiter) {
    LeaseHolder.Statistics leases = limiter.leaseStatistics();
    if (leases == null) {
      return () -> LeaseTotals.NONE;
    }
    return () ->
        new LeaseTotals(
            leases.granted(),
            leases.permitsLeased(),
            leases.answeredLocally(),
            leases.returned(),
            leases.expiredUnused(),
            leases.deniedLocally());
  }

  /**
   * What the console shows: the grid's members' stats merged ({@link GridStatsView}), where each
   * rule came from, and a client-mode node's failure policy per rule.
   */
  private static Console console(
      NodeSettings settings,
      HazelcastInstance member,
      boolean client,
      NodeStats stats,
      @Nullable RulesFileWatcher watcher,
      List<Rule> bundled) {
    Function<Rule, String> origin =
        rule -> {
          if (watcher != null) {
            return watcher
                .fileRule(rule.name())
                .map(inFile -> inFile.equals(rule) ? "rules_file" : "rules_file_then_api")
                .orElse("api");
          }
          return bundled.contains(rule) ? "bundled_examples" : "api";
        };
    Function<String, @Nullable String> failurePolicy =
        client
            ? name ->
                NodeSettings.wireName(
                    settings.failurePolicies().getOrDefault(name, settings.failurePolicy()))
            : name -> null;
    return new Console(
        stats.node(),
        client ? "client" : "member",
        stats,
        new GridStatsView(member, settings.clusterName(), stats, CONSOLE_GATHER_TIMEOUT),
        origin,
        failurePolicy);
  }

  /**
   * The SDK's client-side behaviour around the node's grid limiter: call timeout, failure policies,
   * breaker, denied-until cache, coalescing, and {@code sluice_client_local_decisions_total} on the
   * node's {@code /metrics}. It does not own the limiter or the Hazelcast client (the node closes
   * them). The client reads every rule when it connects, so that each has a local answer if the
   * grid goes away before the rule's first check.
   */
  private static SluiceClient clientFront(
      NodeSettings settings,
      GridRateLimiter limiter,
      PrometheusMeterRegistry registry,
      TimeSource timeSource,
      NodeStats stats) {
    SluiceClient.Builder builder =
        SluiceClient.builder()
            .callTimeout(settings.callTimeout())
            .failurePolicy(settings.failurePolicy())
            .meterRegistry(registry)
            .nodeStats(stats);
    if (timeSource != TimeSource.system()) {
      // A node started on an injected clock (tests) keeps its local denials on that clock too, so
      // that they run out when the grid's do.
      builder.nanoClock(timeSource::nowNanos);
    }
    settings.failurePolicies().forEach(builder::failurePolicy);
    // Waits a moment for a grid that is up, so that it decides the first checks; never fails for
    // want of one (the rules are read into the client's cache when it connects).
    return builder.connectTimeout(CLIENT_FIRST_CONNECT).wrap(limiter);
  }

  /** The REST API's port (useful when the settings asked for port 0). */
  public int restPort() {
    return api.port();
  }

  /** The Envoy rate limit service's gRPC port, or 0 when it is off. */
  public int rlsPort() {
    return envoy.rlsPort();
  }

  /** The Redis protocol's port, or 0 when it is off. */
  public int respPort() {
    return resp == null ? 0 : resp.port();
  }

  /**
   * The host a client-mode node names itself by to cluster-mode Redis clients: its public address,
   * else its bind address, else (bound to every interface) this machine's address.
   */
  private static String advertisedHost(NodeSettings settings) {
    if (settings.publicAddress() != null) {
      return settings.publicAddress();
    }
    String bind = settings.bindAddress();
    if (!bind.equals("0.0.0.0") && !bind.equals("::")) {
      return bind;
    }
    try {
      return InetAddress.getLocalHost().getHostAddress();
    } catch (UnknownHostException e) {
      return "127.0.0.1";
    }
  }

  public HazelcastInstance member() {
    return member;
  }

  public GridRateLimiter limiter() {
    return limiter;
  }

  public NodeSettings settings() {
    return settings;
  }

  /**
   * Stops what the start opened, the last opened first: the REST API, the Redis protocol and the
   * Envoy rate limit service finish the requests in flight, then the member leaves gracefully
   * (partitions migrate).
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    LOG.info(
        "stopping Sluice node: REST, the Redis protocol and Envoy RLS first, then the member"
            + " (partitions migrate)");
    started.close();
    LOG.info("Sluice node stopped");
  }

  /** Limiter entries whose primary copy this member holds (backups not counted). */
  private static long ownedStates(HazelcastInstance member) {
    return member.getMap(GridNames.STATE_MAP).getLocalMapStats().getOwnedEntryCount();
  }

  private static Optional<Path> rulesFile(NodeSettings settings) {
    if (settings.rulesFile() != null) {
      if (!Files.isRegularFile(settings.rulesFile())) {
        throw new NodeConfigException(
            "rulesFile: "
                + settings.rulesFile().toAbsolutePath()
                + " does not exist or is not a file");
      }
      return Optional.of(settings.rulesFile());
    }
    return DEFAULT_RULES_FILES.stream().filter(Files::isRegularFile).findFirst();
  }

  /** The example rules bundled in the jar, used when no rules file is (the console names them). */
  private static List<Rule> bundledRules() {
    try (InputStream in = SluiceNode.class.getResourceAsStream(BUNDLED_RULES)) {
      if (in == null) {
        throw new IllegalStateException("rules.yaml is missing from the grid-node jar");
      }
      return RulesFile.parse(
          "the bundled rules.yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Ready once the member runs, has joined, and its partitions have been safe once: backups in
   * place for every partition it owns, so traffic it takes is not counted on a single copy.
   */
  private static final class MemberReadiness implements ReadinessProbe {
    private final HazelcastInstance member;
    private volatile boolean safeOnce;

    MemberReadiness(HazelcastInstance member) {
      this.member = member;
    }

    @Override
    public Readiness check() {
      if (!member.getLifecycleService().isRunning()) {
        return new Readiness(false, "the member is not running");
      }
      int size = member.getCluster().getMembers().size();
      if (!safeOnce) {
        PartitionService partitions = member.getPartitionService();
        if (!partitions.isLocalMemberSafe()) {
          return new Readiness(false, "waiting for partition backups (migration in progress)");
        }
        safeOnce = true;
      }
      return new Readiness(true, "member of a " + size + "-member cluster");
    }
  }

  /**
   * A client-mode node is ready while the grid answers: connected, and some member answered the
   * client's probe within two call timeouts ({@link SluiceClient#gridState()}). A grid that hangs
   * keeps its connections open for a minute; the probe takes the node out of its load balancer
   * within about {@code 2 × callTimeout} instead, and puts it back at the first answer. While not
   * ready it still answers checks, by the failure policy.
   */
  private static ReadinessProbe clientReadiness(HazelcastInstance client, SluiceClient front) {
    return () -> {
      GridState state = front.gridState();
      if (state != GridState.CONNECTED) {
        return new ReadinessProbe.Readiness(
            false,
            "grid "
                + state.wireName()
                + "; checks are answered by the failure policy until it answers");
      }
      return new ReadinessProbe.Readiness(
          true, "client of a " + client.getCluster().getMembers().size() + "-member cluster");
    };
  }

  /** {@code --help}: print the usage and exit 0. */
  private static final class HelpRequested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super(null, null, false, false);
    }
  }
}
