package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.FailurePolicy;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import dev.sluice.node.NodeSettings.Discovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeSettingsTest {
  @TempDir Path dir;

  @Test
  void defaults_singleLoopbackMemberOnTheDocumentedPorts() {
    NodeSettings settings = NodeSettings.defaults();

    assertThat(settings.clusterName()).isEqualTo("sluice");
    assertThat(settings.restPort()).isEqualTo(8080);
    assertThat(settings.memberPort()).isEqualTo(5701);
    assertThat(settings.bindAddress()).isEqualTo("127.0.0.1");
    assertThat(settings.bindsLoopbackOnly()).isTrue();
    assertThat(settings.discovery()).isEqualTo(Discovery.TCP_IP);
    assertThat(settings.members()).isEmpty();
    assertThat(settings.rulesFile()).isNull();
    assertThat(settings.rulesReloadInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(settings.hasAdminToken()).isFalse();
    assertThat(settings.backupCount()).isEqualTo(1);
    assertThat(settings.insecure()).isFalse();
    assertThat(settings.failurePolicy()).isEqualTo(FailurePolicy.FAIL_OPEN);
    assertThat(settings.failurePolicies()).isEmpty();
    assertThat(settings.callTimeout()).isEqualTo(SluiceClient.DEFAULT_CALL_TIMEOUT);
    assertThat(settings.hasClientFailureSettings()).isFalse();
  }

  @Test
  void environmentVariables_areOnePerSettingWithTheRequiredOnes() {
    assertThat(Setting.ENVIRONMENT_VARIABLES)
        .hasSize(Setting.values().length)
        .doesNotHaveDuplicates()
        .allMatch(name -> name.startsWith("SLUICE_"))
        .contains(
            "SLUICE_REST_PORT",
            "SLUICE_MEMBER_PORT",
            "SLUICE_CLUSTER_NAME",
            "SLUICE_MEMBERS",
            "SLUICE_RULES_FILE",
            "SLUICE_ADMIN_TOKEN",
            "SLUICE_BIND_ADDRESS",
            "SLUICE_PUBLIC_ADDRESS",
            "SLUICE_DISCOVERY",
            "SLUICE_KUBERNETES_SERVICE_DNS",
            "SLUICE_KUBERNETES_NAMESPACE",
            "SLUICE_KUBERNETES_SERVICE_NAME",
            "SLUICE_BACKUP_COUNT",
            "SLUICE_INSECURE",
            "SLUICE_FAILURE_POLICY",
            "SLUICE_FAILURE_POLICIES",
            "SLUICE_CALL_TIMEOUT");
  }

  @Test
  void file_everySettingIsRead_relativeRulesFileResolvesAgainstTheFile() throws IOException {
    Path config =
        write(
            "node.yaml",
            """
            clusterName: rate-limits
            restPort: 9080
            memberPort: 6701
            bindAddress: 0.0.0.0
            publicAddress: 10.0.0.5
            discovery: tcp-ip
            members:
              - 10.0.0.5:6701
              - 10.0.0.6:6701
            rulesFile: rules/prod.yaml
            rulesReloadInterval: 500ms
            adminToken: t0ken
            backupCount: 2
            insecure: false
            """);

    NodeSettings settings = NodeSettings.load(config, Map.of());

    assertThat(settings.clusterName()).isEqualTo("rate-limits");
    assertThat(settings.restPort()).isEqualTo(9080);
    assertThat(settings.memberPort()).isEqualTo(6701);
    assertThat(settings.bindAddress()).isEqualTo("0.0.0.0");
    assertThat(settings.bindsLoopbackOnly()).isFalse();
    assertThat(settings.publicAddress()).isEqualTo("10.0.0.5");
    assertThat(settings.members()).containsExactly("10.0.0.5:6701", "10.0.0.6:6701");
    assertThat(settings.rulesFile()).isEqualTo(dir.resolve("rules/prod.yaml").toAbsolutePath());
    assertThat(settings.rulesReloadInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.adminToken()).isEqualTo("t0ken");
    assertThat(settings.backupCount()).isEqualTo(2);
  }

  @Test
  void environment_overridesTheFile() throws IOException {
    Path config = write("node.yaml", "restPort: 9080\nclusterName: from-file\n");

    NodeSettings settings =
        NodeSettings.load(
            config,
            Map.of(
                "SLUICE_REST_PORT", "9090",
                "SLUICE_MEMBERS", "a:5701, b:5702 ,",
                "SLUICE_CLUSTER_NAME", ""));

    assertThat(settings.restPort()).isEqualTo(9090);
    assertThat(settings.members()).containsExactly("a:5701", "b:5702");
    assertThat(settings.clusterName())
        .as("an empty variable does not override")
        .isEqualTo("from-file");
  }

  static Stream<Arguments> everyVariable() {
    return Stream.of(
        Arguments.of(
            "SLUICE_MODE",
            "Member",
            (Function<NodeSettings, Object>) NodeSettings::mode,
            NodeSettings.Mode.MEMBER),
        Arguments.of(
            "SLUICE_CLUSTER_NAME",
            "blue",
            (Function<NodeSettings, Object>) NodeSettings::clusterName,
            "blue"),
        Arguments.of(
            "SLUICE_REST_PORT",
            "8181",
            (Function<NodeSettings, Object>) NodeSettings::restPort,
            8181),
        Arguments.of(
            "SLUICE_MEMBER_PORT",
            "5801",
            (Function<NodeSettings, Object>) NodeSettings::memberPort,
            5801),
        Arguments.of(
            "SLUICE_PORT_OFFSET",
            "10",
            (Function<NodeSettings, Object>) NodeSettings::restPort,
            8090),
        Arguments.of(
            "SLUICE_BIND_ADDRESS",
            "0.0.0.0",
            (Function<NodeSettings, Object>) NodeSettings::bindAddress,
            "0.0.0.0"),
        Arguments.of(
            "SLUICE_PUBLIC_ADDRESS",
            "10.1.2.3",
            (Function<NodeSettings, Object>) NodeSettings::publicAddress,
            "10.1.2.3"),
        Arguments.of(
            "SLUICE_DISCOVERY",
            "kubernetes-api",
            (Function<NodeSettings, Object>) NodeSettings::discovery,
            Discovery.KUBERNETES_API),
        Arguments.of(
            "SLUICE_MEMBERS",
            "h1:1,h2:2",
            (Function<NodeSettings, Object>) NodeSettings::members,
            List.of("h1:1", "h2:2")),
        Arguments.of(
            "SLUICE_KUBERNETES_SERVICE_DNS",
            "s.ns.svc",
            (Function<NodeSettings, Object>) NodeSettings::kubernetesServiceDns,
            "s.ns.svc"),
        Arguments.of(
            "SLUICE_KUBERNETES_NAMESPACE",
            "limits",
            (Function<NodeSettings, Object>) NodeSettings::kubernetesNamespace,
            "limits"),
        Arguments.of(
            "SLUICE_KUBERNETES_SERVICE_NAME",
            "sluice-hs",
            (Function<NodeSettings, Object>) NodeSettings::kubernetesServiceName,
            "sluice-hs"),
        Arguments.of(
            "SLUICE_RULES_FILE",
            "/etc/sluice/rules.yaml",
            (Function<NodeSettings, Object>) NodeSettings::rulesFile,
            Path.of("/etc/sluice/rules.yaml")),
        Arguments.of(
            "SLUICE_RULES_RELOAD_INTERVAL",
            "PT2S",
            (Function<NodeSettings, Object>) NodeSettings::rulesReloadInterval,
            Duration.ofSeconds(2)),
        Arguments.of(
            "SLUICE_ADMIN_TOKEN",
            "abc",
            (Function<NodeSettings, Object>) NodeSettings::adminToken,
            "abc"),
        Arguments.of(
            "SLUICE_BACKUP_COUNT",
            "0",
            (Function<NodeSettings, Object>) NodeSettings::backupCount,
            0),
        Arguments.of(
            "SLUICE_INSECURE",
            "TRUE",
            (Function<NodeSettings, Object>) NodeSettings::insecure,
            true),
        Arguments.of(
            "SLUICE_FAILURE_POLICY",
            "Fail-Closed",
            (Function<NodeSettings, Object>) NodeSettings::failurePolicy,
            FailurePolicy.FAIL_CLOSED),
        Arguments.of(
            "SLUICE_FAILURE_POLICIES",
            " login=fail-closed, api = fail-open ,",
            (Function<NodeSettings, Object>) NodeSettings::failurePolicies,
            Map.of("login", FailurePolicy.FAIL_CLOSED, "api", FailurePolicy.FAIL_OPEN)),
        Arguments.of(
            "SLUICE_CALL_TIMEOUT",
            "PT0.25S",
            (Function<NodeSettings, Object>) NodeSettings::callTimeout,
            Duration.ofMillis(250)),
        Arguments.of(
            "SLUICE_RLS_PORT", "0", (Function<NodeSettings, Object>) NodeSettings::rlsPort, 0),
        Arguments.of(
            "SLUICE_ENVOY_CONFIG",
            "/etc/sluice/envoy",
            (Function<NodeSettings, Object>) NodeSettings::envoyConfig,
            Path.of("/etc/sluice/envoy")),
        Arguments.of(
            "SLUICE_ENVOY_SHADOW_MODE",
            "true",
            (Function<NodeSettings, Object>) NodeSettings::envoyShadowMode,
            true),
        Arguments.of(
            "SLUICE_ENVOY_HEADERS",
            " X-RateLimit , ratelimit",
            (Function<NodeSettings, Object>) NodeSettings::envoyHeaders,
            Set.of(Family.X_RATELIMIT, Family.RATELIMIT)),
        Arguments.of(
            "SLUICE_RESP_PORT", "0", (Function<NodeSettings, Object>) NodeSettings::respPort, 0),
        Arguments.of(
            "SLUICE_REGION",
            "eu-west",
            (Function<NodeSettings, Object>) NodeSettings::region,
            "eu-west"),
        Arguments.of(
            "SLUICE_HOME_MEMBERS",
            "10.0.0.5:5701,10.0.0.6:5701",
            (Function<NodeSettings, Object>) s -> s.home().homeMembers(),
            List.of("10.0.0.5:5701", "10.0.0.6:5701")),
        Arguments.of(
            "SLUICE_HOME_CLUSTER_NAME",
            "home",
            (Function<NodeSettings, Object>) NodeSettings::home,
            null),
        Arguments.of(
            "SLUICE_HOME_TIMEOUT",
            "1s",
            (Function<NodeSettings, Object>) NodeSettings::home,
            null));
  }

  @Test
  void homeSettings_badValues_nameTheSetting() {
    assertThat(
            NodeSettings.load(
                    null,
                    Map.of(
                        "SLUICE_REGION",
                        "eu",
                        "SLUICE_HOME_MEMBERS",
                        "127.0.0.1:5801",
                        "SLUICE_HOME_TIMEOUT",
                        "400ms"))
                .home())
        .isEqualTo(
            new dev.sluice.core.grid.RegionLink.Settings(
                "eu", "sluice-home", List.of("127.0.0.1:5801"), java.time.Duration.ofMillis(400)));
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_HOME_MEMBERS", "home:x")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(
            "environment variable SLUICE_HOME_MEMBERS: homeMembers: 'home:x' is not host:port"
                + " (e.g. 10.0.0.5:5701)");
    assertThatThrownBy(
            () ->
                NodeSettings.load(
                    null,
                    Map.of(
                        "SLUICE_HOME_MEMBERS",
                        "10.0.0.5:5701",
                        "SLUICE_HOME_CLUSTER_NAME",
                        "sluice")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("homeClusterName: is this node's own clusterName");
    assertThatThrownBy(
            () ->
                NodeSettings.load(
                    null,
                    Map.of(
                        "SLUICE_HOME_MEMBERS",
                        "10.0.0.5:5701",
                        "SLUICE_MODE",
                        "client",
                        "SLUICE_MEMBERS",
                        "10.0.0.1:5701")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("homeMembers: is a member's setting");
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_REGION", "eu west")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("region: must be 1 to 64 characters");
  }

  @Test
  void respPort_defaultsTo6380_zeroTurnsItOff_badValuesAreRefused() {
    assertThat(NodeSettings.defaults().respPort()).isEqualTo(6380);
    assertThat(NodeSettings.load(null, Map.of("SLUICE_RESP_PORT", "16380")).respPort())
        .isEqualTo(16380);
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_RESP_PORT", "redis")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("respPort: must be a port number from 0 to 65535, was 'redis'");
  }

  @Test
  void envoySettings_defaultsFileListsAndBadValues() throws IOException {
    NodeSettings defaults = NodeSettings.defaults();
    assertThat(defaults.rlsPort()).isEqualTo(8081);
    assertThat(defaults.envoyConfig()).isNull();
    assertThat(defaults.envoyShadowMode()).isFalse();
    assertThat(defaults.envoyHeaders())
        .containsExactlyInAnyOrder(Family.RATELIMIT, Family.RETRY_AFTER);
    assertThat(NodeSettings.load(null, Map.of("SLUICE_ENVOY_HEADERS", "none")).envoyHeaders())
        .isEmpty();

    Path config =
        write("envoy-node.yaml", "envoyConfig: envoy\nenvoyHeaders: [x-ratelimit, retry-after]\n");
    NodeSettings fromFile = NodeSettings.load(config, Map.of());
    assertThat(fromFile.envoyConfig())
        .isEqualTo(config.toAbsolutePath().getParent().resolve("envoy"));
    assertThat(fromFile.envoyHeaders())
        .containsExactlyInAnyOrder(Family.X_RATELIMIT, Family.RETRY_AFTER);

    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_ENVOY_HEADERS", "ietf")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(
            "environment variable SLUICE_ENVOY_HEADERS: envoyHeaders: 'ietf' is not a header"
                + " family; use any of ratelimit, x-ratelimit, retry-after, comma-separated, or"
                + " none");
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_RLS_PORT", "-1")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("rlsPort: must be a port number from 0 to 65535, was '-1'");
  }

  @Test
  void portOffset_shiftsEveryDefaultPort_notASetPortNorAnOffOne() {
    NodeSettings second = NodeSettings.load(null, Map.of("SLUICE_PORT_OFFSET", "10"));
    assertThat(List.of(second.restPort(), second.memberPort(), second.rlsPort()))
        .containsExactly(8090, 5711, 8091);

    NodeSettings set =
        NodeSettings.load(
            null,
            Map.of("SLUICE_PORT_OFFSET", "10", "SLUICE_REST_PORT", "9000", "SLUICE_RLS_PORT", "0"));
    assertThat(List.of(set.restPort(), set.memberPort(), set.rlsPort()))
        .containsExactly(9000, 5711, 0);

    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_PORT_OFFSET", "60000")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("portOffset: moves the default restPort 8080 to 68080, beyond 65535");
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_PORT_OFFSET", "-10")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("portOffset: must be between 0 and 65535, was -10");
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("everyVariable")
  void environmentVariable_setsItsSetting(
      String variable, String value, Function<NodeSettings, Object> read, Object expected) {
    assertThat(read.apply(NodeSettings.load(null, Map.of(variable, value)))).isEqualTo(expected);
  }

  @Test
  void everyVariable_isCoveredByTheTableAbove() {
    assertThat(everyVariable().map(arguments -> (String) arguments.get()[0]))
        .containsExactlyInAnyOrderElementsOf(Setting.ENVIRONMENT_VARIABLES);
  }

  static Stream<Arguments> badFiles() {
    return Stream.of(
        Arguments.of(
            "restPort: http\n",
            "node.yaml:1:11: restPort: must be a port number from 0 to 65535, was 'http'"),
        Arguments.of(
            "restPort: 8080\nmemberPort: 70000\n",
            "node.yaml:2:13: memberPort: must be a port number from 1 to 65535, was '70000'"),
        Arguments.of(
            "clusterName: x\nrestport: 8080\n",
            "node.yaml:2:1: restport: unknown setting; the settings are: mode, clusterName,"
                + " restPort"),
        Arguments.of("restPort: 1\nrestPort: 2\n", "node.yaml:2:1: restPort: appears twice"),
        Arguments.of(
            "restPort: [1\n",
            "node.yaml:2:1: not valid YAML: while parsing a flow sequence (line 1, column 11),"
                + " expected ',' or ']', but got <stream end> (line 2, column 1)"),
        Arguments.of("- just\n- a list\n", "node.yaml:1:1: expected a mapping of settings"),
        Arguments.of(
            "discovery: multicast\n",
            "node.yaml:1:12: discovery: must be one of tcp-ip, kubernetes-dns, kubernetes-api, was 'multicast'"),
        Arguments.of(
            "discovery: kubernetes-dns\n",
            "discovery: kubernetes-dns needs kubernetesServiceDns (SLUICE_KUBERNETES_SERVICE_DNS)"),
        Arguments.of(
            "members: [10.0.0.1]\n", "node.yaml:1:10: members: '10.0.0.1' is not host:port"),
        Arguments.of(
            "members: [[10.0.0.1:5701]]\n",
            "node.yaml:1:11: members[0]: list items must be plain values"),
        Arguments.of(
            "discovery: kubernetes-api\nmembers: [a:1]\n", "members: is for tcp-ip discovery only"),
        Arguments.of("backupCount: 7\n", "node.yaml:1:14: backupCount: must be between 0 and 6"),
        Arguments.of(
            "rulesReloadInterval: 10ms\n",
            "rulesReloadInterval: must be between 100ms and 1h, was 10ms"),
        Arguments.of(
            "rulesReloadInterval: soon\n", "rulesReloadInterval: 'soon' is not a duration"),
        Arguments.of("insecure: yes please\n", "insecure: must be true or false, was 'yes please'"),
        Arguments.of("clusterName: has space\n", "clusterName: must be 1 to 64 characters"),
        Arguments.of("restPort:\n  nested: 1\n", "restPort: must be a plain value, not a mapping"),
        Arguments.of(
            "failurePolicy: fail-maybe\n",
            "node.yaml:1:16: failurePolicy: must be fail-open or fail-closed, was 'fail-maybe'"),
        Arguments.of(
            "failurePolicies:\n  login: closed\n",
            "node.yaml:2:10: failurePolicies.login: must be fail-open or fail-closed, was"
                + " 'closed'"),
        Arguments.of(
            "failurePolicies:\n  bad name: fail-closed\n",
            "failurePolicies: 'bad name' is not a rule name"),
        Arguments.of(
            "failurePolicies:\n  login: fail-open\n  login: fail-closed\n",
            "node.yaml:3:3: failurePolicies.login: appears twice"),
        Arguments.of(
            "failurePolicies:\n  login: [fail-closed]\n",
            "node.yaml:2:10: failurePolicies.login: must be fail-open or fail-closed, not a list"
                + " or mapping"),
        Arguments.of(
            "failurePolicies: [login]\n", "failurePolicies: must be a mapping of rule: policy"),
        Arguments.of(
            "failurePolicies: login\n",
            "failurePolicies: 'login' is not rule=policy (e.g. login=fail-closed,sms=fail-closed)"),
        Arguments.of("callTimeout: 0ms\n", "callTimeout: must be between 1ms and 1m, was 0"),
        Arguments.of("callTimeout: 2m\n", "callTimeout: must be between 1ms and 1m, was 2m"),
        Arguments.of("callTimeout: quick\n", "callTimeout: 'quick' is not a duration"),
        Arguments.of("clusterName:\n  failurePolicies: x\n", "clusterName: must be a plain value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void badFile_failsNamingFileLineAndSetting(String yaml, String expectedMessage)
      throws IOException {
    Path config = write("node.yaml", yaml);
    assertThatThrownBy(() -> NodeSettings.load(config, Map.of()))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining(expectedMessage.replace("node.yaml", config.toString()));
  }

  @Test
  void clientMode_connectsToTheListedMembers() {
    NodeSettings settings =
        NodeSettings.load(
            null, Map.of("SLUICE_MODE", "client", "SLUICE_MEMBERS", "g1:5701,g2:5701"));
    assertThat(settings.mode()).isEqualTo(NodeSettings.Mode.CLIENT);
    assertThat(settings.members()).containsExactly("g1:5701", "g2:5701");
  }

  @Test
  void file_failurePoliciesMapping_andTheEnvironmentOverridesIt() throws IOException {
    Path config =
        write(
            "node.yaml",
            """
            mode: client
            members: [g1:5701]
            failurePolicy: fail-closed
            callTimeout: 250ms
            failurePolicies:
              login: fail-closed
              search: fail-open
            """);

    NodeSettings settings = NodeSettings.load(config, Map.of());
    assertThat(settings.failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
    assertThat(settings.callTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(settings.failurePolicies())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("login", FailurePolicy.FAIL_CLOSED, "search", FailurePolicy.FAIL_OPEN));
    assertThat(settings.hasClientFailureSettings()).isTrue();
    assertThat(settings.toString())
        .contains("failurePolicy=fail-closed")
        .contains("failurePolicies={login=fail-closed,search=fail-open}")
        .contains("callTimeout=250ms");

    NodeSettings overridden =
        NodeSettings.load(config, Map.of("SLUICE_FAILURE_POLICIES", "sms=fail-closed"));
    assertThat(overridden.failurePolicies())
        .as("the variable replaces the file's mapping whole")
        .containsExactlyEntriesOf(Map.of("sms", FailurePolicy.FAIL_CLOSED));
  }

  @Test
  void badFailureSettingsInTheEnvironment_failNamingTheVariable() {
    assertThatThrownBy(
            () -> NodeSettings.load(null, Map.of("SLUICE_FAILURE_POLICIES", "login=fail-shut")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(
            "environment variable SLUICE_FAILURE_POLICIES: failurePolicies: login: must be"
                + " fail-open or fail-closed, was 'fail-shut'");
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_CALL_TIMEOUT", "-5ms")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageStartingWith("environment variable SLUICE_CALL_TIMEOUT: callTimeout: ");
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_FAILURE_POLICY", "open")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(
            "environment variable SLUICE_FAILURE_POLICY: failurePolicy: must be fail-open or"
                + " fail-closed, was 'open'");
  }

  @Test
  void clientMode_withoutMembers_failsNamingThem() {
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_MODE", "client")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessageContaining("members: client mode connects to a remote grid");
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_MODE", "server")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(
            "environment variable SLUICE_MODE: mode: must be member or client, was 'server'");
  }

  @Test
  void badEnvironmentVariable_failsNamingTheVariable() {
    assertThatThrownBy(() -> NodeSettings.load(null, Map.of("SLUICE_MEMBER_PORT", "57o1")))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(
            "environment variable SLUICE_MEMBER_PORT: memberPort: must be a port number from 1 to"
                + " 65535, was '57o1'");
  }

  @Test
  void unknownSluiceVariable_isWarnedAboutWithTheClosestSetting() {
    Map<String, String> environment = new java.util.HashMap<>();
    environment.put("SLUICE_ADMIN_TOKNE", "s3cret"); // the typo leaves admin routes open
    environment.put("SLUICE_RESTPORT", "9090");
    environment.put("SLUICE_COLOUR", "blue");
    environment.put("SLUICE_REST_PORT", "8080");
    environment.put("HOME", "/root");
    // Kubernetes service links of a Service named sluice or sluice-hs: not settings, not typos.
    environment.put("SLUICE_PORT", "tcp://10.0.0.9:8080");
    environment.put("SLUICE_SERVICE_HOST", "10.0.0.9");
    environment.put("SLUICE_HS_SERVICE_PORT_HTTP", "8080");
    environment.put("SLUICE_PORT_8080_TCP_ADDR", "10.0.0.9");

    assertThat(UnknownSluiceVariables.warnings(environment))
        .containsExactly(
            "environment variable SLUICE_ADMIN_TOKNE is not a Sluice setting and is ignored;"
                + " did you mean SLUICE_ADMIN_TOKEN?",
            "environment variable SLUICE_COLOUR is not a Sluice setting and is ignored",
            "environment variable SLUICE_RESTPORT is not a Sluice setting and is ignored;"
                + " did you mean SLUICE_REST_PORT?")
        .noneMatch(warning -> warning.contains("s3cret"));
    assertThat(NodeSettings.load(null, environment).restPort()).isEqualTo(8080);
  }

  @Test
  void missingConfigFile_failsNamingIt() {
    Path missing = dir.resolve("absent.yaml");
    assertThatThrownBy(() -> NodeSettings.load(missing, Map.of()))
        .isInstanceOf(NodeConfigException.class)
        .hasMessage(missing + ": no such file");
  }

  @Test
  void emptyConfigFile_meansDefaults() throws IOException {
    assertThat(NodeSettings.load(write("empty.yaml", ""), Map.of()))
        .isEqualTo(NodeSettings.defaults());
  }

  @Test
  void toString_neverShowsTheAdminToken() {
    NodeSettings settings = NodeSettings.load(null, Map.of("SLUICE_ADMIN_TOKEN", "hunter2"));
    assertThat(settings.toString()).doesNotContain("hunter2").contains("adminToken=<set>");
  }

  private Path write(String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content);
    return file;
  }
}
