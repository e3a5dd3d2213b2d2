package dev.sluice.helm;

import static dev.sluice.helm.RenderedChart.env;
import static dev.sluice.helm.RenderedChart.stringMap;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders the chart for the scenarios an operator meets and checks the manifests hang together:
 * every selector selects the grid's pods, every port a Service or probe names exists on the
 * container, discovery settings point at the headless Service, and optional resources appear
 * exactly when asked for.
 */
class ChartRenderTest {

  private static final String FULLNAME = "rl-sluice";
  private static final String HEADLESS = "rl-sluice-members";

  @BeforeEach
  void emptyCluster() {
    SluiceChart.CLUSTER.clear();
  }

  @Test
  void template_defaultValues_rendersTheCoreKindsAndTheNetworkPolicy() {
    RenderedChart chart = SluiceChart.withDefaults().render();

    assertThat(chart.inventory())
        .containsOnlyKeys(
            "StatefulSet",
            "Service",
            "ConfigMap",
            "Secret",
            "PodDisruptionBudget",
            "NetworkPolicy");
    assertThat(chart.inventory().get("Service")).containsExactlyInAnyOrder(FULLNAME, HEADLESS);
    assertThat(chart.one("StatefulSet").path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(chart.documents())
        .allSatisfy(
            d -> assertThat(d.path("metadata").path("namespace").asText()).isEqualTo("limits"));
  }

  @Test
  void template_defaultValues_everySelectorSelectsTheGridPods() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode statefulSet = chart.one("StatefulSet");
    Map<String, String> podLabels =
        stringMap(statefulSet.path("spec").path("template").path("metadata").path("labels"));

    assertThat(podLabels)
        .containsAllEntriesOf(
            stringMap(statefulSet.path("spec").path("selector").path("matchLabels")));
    assertThat(podLabels)
        .containsAllEntriesOf(
            stringMap(chart.named("Service", FULLNAME).path("spec").path("selector")));
    assertThat(podLabels)
        .containsAllEntriesOf(
            stringMap(chart.named("Service", HEADLESS).path("spec").path("selector")));
    assertThat(podLabels)
        .containsAllEntriesOf(
            stringMap(
                chart
                    .one("PodDisruptionBudget")
                    .path("spec")
                    .path("selector")
                    .path("matchLabels")));
    JsonNode antiAffinity =
        statefulSet
            .path("spec")
            .path("template")
            .path("spec")
            .path("affinity")
            .path("podAntiAffinity")
            .path("preferredDuringSchedulingIgnoredDuringExecution")
            .path(0)
            .path("podAffinityTerm");
    assertThat(antiAffinity.path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
    assertThat(podLabels)
        .containsAllEntriesOf(stringMap(antiAffinity.path("labelSelector").path("matchLabels")));
  }

  @Test
  void template_defaultValues_servicesAndProbesUseTheContainerPorts() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode node = chart.gridNodeContainer();
    Map<String, Integer> containerPorts = containerPorts(node);
    Map<String, JsonNode> env = env(node);

    assertThat(containerPorts).containsEntry("http", 8080).containsEntry("hazelcast", 5701);
    assertThat(env.get("SLUICE_REST_PORT").path("value").asText()).isEqualTo("8080");
    assertThat(env.get("SLUICE_MEMBER_PORT").path("value").asText()).isEqualTo("5701");
    assertThat(probe(node, "livenessProbe")).isEqualTo(List.of("/health/live", "http"));
    assertThat(probe(node, "startupProbe")).isEqualTo(List.of("/health/live", "http"));
    assertThat(probe(node, "readinessProbe")).isEqualTo(List.of("/health/ready", "http"));

    for (JsonNode service : chart.all("Service")) {
      for (JsonNode port : service.path("spec").path("ports")) {
        assertThat(containerPorts)
            .as("Service %s targets a named container port", service.path("metadata").path("name"))
            .containsKey(port.path("targetPort").asText());
      }
    }
    JsonNode clientPort = chart.named("Service", FULLNAME).path("spec").path("ports").path(0);
    assertThat(clientPort.path("targetPort").asText()).isEqualTo("http");
    assertThat(chart.named("Service", FULLNAME).path("spec").path("type").asText())
        .isEqualTo("ClusterIP");
  }

  @Test
  void template_defaultValues_headlessServiceServesTheMemberPortToUnreadyPods() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode headless = chart.named("Service", HEADLESS).path("spec");
    JsonNode statefulSet = chart.one("StatefulSet").path("spec");

    assertThat(headless.path("clusterIP").asText()).isEqualTo("None");
    assertThat(headless.path("publishNotReadyAddresses").asBoolean()).isTrue();
    assertThat(headless.path("ports").findValuesAsText("name")).contains("hazelcast");
    JsonNode memberPort = port(headless, "hazelcast");
    assertThat(memberPort.path("port").asInt()).isEqualTo(5701);
    assertThat(memberPort.path("targetPort").asText()).isEqualTo("hazelcast");
    assertThat(statefulSet.path("serviceName").asText()).isEqualTo(HEADLESS);
    Map<String, JsonNode> env = env(chart.gridNodeContainer());
    assertThat(env.get("SLUICE_DISCOVERY").path("value").asText()).isEqualTo("kubernetes-dns");
    assertThat(env.get("SLUICE_KUBERNETES_SERVICE_DNS").path("value").asText())
        .isEqualTo(HEADLESS + ".limits.svc.cluster.local");
    assertThat(env).doesNotContainKeys("SLUICE_MEMBERS", "SLUICE_KUBERNETES_SERVICE_NAME");
  }

  @Test
  void template_defaultValues_podRunsNonRootReadOnlyWithWritableTmp() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode podSpec = chart.one("StatefulSet").path("spec").path("template").path("spec");
    JsonNode node = chart.gridNodeContainer();

    assertThat(podSpec.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(podSpec.path("securityContext").path("runAsUser").asInt()).isPositive();
    assertThat(node.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(node.path("securityContext").path("allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(node.path("securityContext").path("capabilities").path("drop").path(0).asText())
        .isEqualTo("ALL");
    assertThat(mountPath(node, "tmp")).isEqualTo("/tmp");
    assertThat(volume(podSpec, "tmp").has("emptyDir")).isTrue();
    assertThat(node.path("resources").path("requests").path("memory").asText()).isNotEmpty();
    assertThat(node.path("resources").path("limits").path("memory").asText()).isNotEmpty();
  }

  @Test
  void template_defaultValues_shutdownLeavesTimeForPartitionsToMigrate() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode podSpec = chart.one("StatefulSet").path("spec").path("template").path("spec");
    JsonNode node = chart.gridNodeContainer();
    int graceSeconds = podSpec.path("terminationGracePeriodSeconds").asInt();

    int preStopSeconds = 5;
    // The kubelet sleeps: an exec hook would need a shell, and the image has none.
    assertThat(node.path("lifecycle").path("preStop").path("sleep").path("seconds").asInt())
        .isEqualTo(preStopSeconds);
    assertThat(node.path("lifecycle").path("preStop").has("exec")).isFalse();
    // The node waits up to 120 s for its partitions to migrate (NodeContractTest reads the
    // node's constant); Kubernetes must not kill it before.
    assertThat(graceSeconds).isGreaterThan(preStopSeconds + 120);
    assertThat(env(node)).doesNotContainKey("JAVA_TOOL_OPTIONS");
    assertThat(chart.one("PodDisruptionBudget").path("spec").path("maxUnavailable").asInt())
        .isEqualTo(1);
    assertThat(chart.one("StatefulSet").path("spec").path("updateStrategy").path("type").asText())
        .isEqualTo("RollingUpdate");
    assertThat(env(node).get("SLUICE_BACKUP_COUNT").path("value").asText()).isEqualTo("1");
  }

  @Test
  void template_clusterOlderThan130_hasNoPreStopHook_becauseOnlyTheKubeletCanSleep() {
    // Before 1.30 the sleep action is off or unknown, and an exec hook would find no shell in the
    // image: the node then goes without the pause.
    JsonNode node = SluiceChart.withDefaults().kubeVersion("1.29.4").render().gridNodeContainer();

    assertThat(node.has("lifecycle")).as(node.toString()).isFalse();
  }

  @Test
  void template_preStopSleepZero_hasNoPreStopHook() {
    JsonNode node =
        SluiceChart.withDefaults().set("preStopSleepSeconds", 0).render().gridNodeContainer();

    assertThat(node.has("lifecycle")).as(node.toString()).isFalse();
  }

  @Test
  void template_defaultValues_rulesAndConfigComeFromTheMountedConfigMap() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode node = chart.gridNodeContainer();
    JsonNode podSpec = chart.one("StatefulSet").path("spec").path("template").path("spec");
    String rules = chart.named("ConfigMap", FULLNAME).path("data").path("rules.yaml").asText();

    assertThat(rules).contains("name: login").contains("algorithm: gcra");
    assertThat(env(node).get("SLUICE_RULES_FILE").path("value").asText())
        .isEqualTo(mountPath(node, "config") + "/rules.yaml");
    assertThat(volume(podSpec, "config").path("configMap").path("name").asText())
        .isEqualTo(FULLNAME);
    // No nodeConfig given: no config file and no --config argument.
    assertThat(chart.named("ConfigMap", FULLNAME).path("data").has("sluice.yaml")).isFalse();
    assertThat(node.has("args")).isFalse();
  }

  @Test
  void template_nodeConfigGiven_passesTheConfigFileToTheNode() {
    RenderedChart chart =
        SluiceChart.withDefaults().set("nodeConfig.rulesReloadInterval", "5s").render();

    assertThat(chart.named("ConfigMap", FULLNAME).path("data").path("sluice.yaml").asText())
        .contains("rulesReloadInterval: 5s");
    assertThat(chart.gridNodeContainer().path("args").toString())
        .isEqualTo("[\"--config\",\"/etc/sluice/sluice.yaml\"]");
  }

  @Test
  void template_jvmExtraOptions_goToJavaToolOptions() {
    JsonNode node =
        SluiceChart.withDefaults()
            .set("jvm.extraOptions", "-XX:+UseZGC")
            .render()
            .gridNodeContainer();

    assertThat(env(node).get("JAVA_TOOL_OPTIONS").path("value").asText()).isEqualTo("-XX:+UseZGC");
  }

  /**
   * A rules edit reaches running nodes by the ConfigMap's update and the node's hot reload; it must
   * not change the pods' template, or every edit would roll the whole StatefulSet. A change of the
   * node config, read once at start, must.
   */
  @Test
  void template_rulesChange_podTemplateUnchanged_soPodsDoNotRoll() {
    RenderedChart defaults = SluiceChart.withDefaults().render();
    RenderedChart otherRules =
        SluiceChart.withDefaults()
            .values(
                """
                    rules:
                      - {name: login, algorithm: sliding_window, limit: 6, window: 1m}
                      - {name: api, algorithm: gcra, limit: 100, window: 1s, burst: 20}
                    """)
            .render();

    assertThat(checksum(defaults)).matches("[0-9a-f]{64}");
    assertThat(otherRules.named("ConfigMap", FULLNAME).path("data").path("rules.yaml").asText())
        .as("the edit is in the ConfigMap")
        .contains("limit: 6")
        .isNotEqualTo(
            defaults.named("ConfigMap", FULLNAME).path("data").path("rules.yaml").asText());
    assertThat(podTemplate(otherRules))
        .as("the pod template, annotations included")
        .isEqualTo(podTemplate(defaults));
  }

  @Test
  void template_nodeConfigChange_checksumAnnotationChangesSoPodsRoll() {
    String defaults = checksum(SluiceChart.withDefaults().render());
    String sameConfig = checksum(SluiceChart.withDefaults().set("replicaCount", 4).render());
    String otherConfig =
        checksum(SluiceChart.withDefaults().set("nodeConfig.rulesReloadInterval", "5s").render());

    assertThat(sameConfig).isEqualTo(defaults);
    assertThat(otherConfig).isNotEqualTo(defaults);
  }

  @Test
  void template_fiveReplicasWithCustomRulesFile_shipsTheFileVerbatim(@TempDir Path dir)
      throws IOException {
    String rulesFile =
        """
        rules:
          - name: signup
            algorithm: token_bucket
            limit: 10
            window: 1h
            burst: 3
          - name: search
            limit: 50
            window: 1s
            shadow: true
        """;
    Path file = Files.writeString(dir.resolve("my-rules.yaml"), rulesFile);

    RenderedChart chart =
        SluiceChart.withDefaults().set("replicaCount", 5).setFile("rulesYaml", file).render();

    assertThat(chart.one("StatefulSet").path("spec").path("replicas").asInt()).isEqualTo(5);
    assertThat(chart.named("ConfigMap", FULLNAME).path("data").path("rules.yaml").asText().strip())
        .isEqualTo(rulesFile.strip());
    assertThat(checksum(chart))
        .as("rules are hot-reloaded, not rolled")
        .isEqualTo(checksum(SluiceChart.withDefaults().render()));
  }

  @Test
  void template_tcpIpDiscovery_listsEveryStatefulSetPodByItsStableName() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("replicaCount", 5)
            .set("cluster.discovery", "tcp-ip")
            .render();
    Map<String, JsonNode> env = env(chart.gridNodeContainer());

    assertThat(env.get("SLUICE_DISCOVERY").path("value").asText()).isEqualTo("tcp-ip");
    assertThat(env.get("SLUICE_MEMBERS").path("value").asText().split(","))
        .containsExactly(
            "rl-sluice-0.rl-sluice-members.limits.svc.cluster.local:5701",
            "rl-sluice-1.rl-sluice-members.limits.svc.cluster.local:5701",
            "rl-sluice-2.rl-sluice-members.limits.svc.cluster.local:5701",
            "rl-sluice-3.rl-sluice-members.limits.svc.cluster.local:5701",
            "rl-sluice-4.rl-sluice-members.limits.svc.cluster.local:5701");
  }

  @Test
  void template_kubernetesApiDiscovery_grantsReadOnlyAccessToItsOwnServiceAccount() {
    RenderedChart chart =
        SluiceChart.withDefaults().set("cluster.discovery", "kubernetes-api").render();
    JsonNode podSpec = chart.one("StatefulSet").path("spec").path("template").path("spec");
    Map<String, JsonNode> env = env(chart.gridNodeContainer());
    JsonNode role = chart.one("Role");
    JsonNode binding = chart.one("RoleBinding");

    assertThat(chart.inventory()).containsKeys("ServiceAccount", "Role", "RoleBinding");
    String account = chart.one("ServiceAccount").path("metadata").path("name").asText();
    assertThat(podSpec.path("serviceAccountName").asText()).isEqualTo(account);
    assertThat(podSpec.path("automountServiceAccountToken").asBoolean()).isTrue();
    assertThat(binding.path("subjects").path(0).path("name").asText()).isEqualTo(account);
    assertThat(binding.path("subjects").path(0).path("namespace").asText()).isEqualTo("limits");
    assertThat(binding.path("roleRef").path("kind").asText()).isEqualTo("Role");
    assertThat(binding.path("roleRef").path("name").asText())
        .isEqualTo(role.path("metadata").path("name").asText());
    assertThat(role.path("rules").path(0).path("resources").toString())
        .contains("endpoints", "pods");
    for (JsonNode rule : role.path("rules")) {
      assertThat(rule.path("verbs").toString())
          .doesNotContain("create", "update", "patch", "delete");
    }
    assertThat(env.get("SLUICE_DISCOVERY").path("value").asText()).isEqualTo("kubernetes-api");
    assertThat(env.get("SLUICE_KUBERNETES_SERVICE_NAME").path("value").asText())
        .isEqualTo(HEADLESS);
    assertThat(
            env.get("SLUICE_KUBERNETES_NAMESPACE")
                .path("valueFrom")
                .path("fieldRef")
                .path("fieldPath")
                .asText())
        .isEqualTo("metadata.namespace");
    assertThat(env).doesNotContainKeys("SLUICE_MEMBERS", "SLUICE_KUBERNETES_SERVICE_DNS");
  }

  @Test
  void template_serviceMonitorAndNetworkPolicyOn_scrapeTheRestPortAndFenceTheMemberPort() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("metrics.serviceMonitor.enabled", true)
            .set("metrics.serviceMonitor.labels.release", "prometheus")
            .set("networkPolicy.restFromAnywhere", false)
            .values("networkPolicy: {allowedNamespaces: [frontend, monitoring]}")
            .render();
    Map<String, String> podLabels =
        stringMap(
            chart.one("StatefulSet").path("spec").path("template").path("metadata").path("labels"));

    JsonNode monitor = chart.one("ServiceMonitor");
    Map<String, String> monitored =
        stringMap(monitor.path("spec").path("selector").path("matchLabels"));
    assertThat(monitor.path("metadata").path("labels").path("release").asText())
        .isEqualTo("prometheus");
    assertThat(stringMap(chart.named("Service", FULLNAME).path("metadata").path("labels")))
        .containsAllEntriesOf(monitored);
    // Only the client Service: scraping the headless one too would count every node twice.
    assertThat(stringMap(chart.named("Service", HEADLESS).path("metadata").path("labels")))
        .doesNotContainEntry(
            "app.kubernetes.io/component", monitored.get("app.kubernetes.io/component"));
    JsonNode endpoint = monitor.path("spec").path("endpoints").path(0);
    assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
    assertThat(port(chart.named("Service", FULLNAME).path("spec"), endpoint.path("port").asText()))
        .isNotNull();

    JsonNode policy = chart.one("NetworkPolicy").path("spec");
    assertThat(podLabels)
        .containsAllEntriesOf(stringMap(policy.path("podSelector").path("matchLabels")));
    JsonNode memberRule = ingressRuleFor(policy, "hazelcast");
    assertThat(memberRule.path("from")).hasSize(1);
    assertThat(memberRule.path("from").path(0).has("namespaceSelector")).isFalse();
    assertThat(podLabels)
        .containsAllEntriesOf(
            stringMap(memberRule.path("from").path(0).path("podSelector").path("matchLabels")));
    JsonNode restRule = ingressRuleFor(policy, "http");
    assertThat(restRule.path("from").findValuesAsText("kubernetes.io/metadata.name"))
        .containsExactly("frontend", "monitoring");
  }

  @Test
  void template_networkPolicyWithNoRestSources_admitsNobodyOnTheRestPort() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("networkPolicy.restFromAnywhere", false)
            .set("networkPolicy.allowSameNamespace", false)
            .render();

    // An ingress rule with ports but no `from` would admit everyone: the rule must be absent.
    JsonNode ingress = chart.one("NetworkPolicy").path("spec").path("ingress");
    assertThat(ingress).hasSize(1);
    assertThat(ingress.path(0).path("ports").path(0).path("port").asText()).isEqualTo("hazelcast");
  }

  @Test
  void template_networkPolicyDefaults_fenceTheMemberPortOnly() {
    RenderedChart chart = SluiceChart.withDefaults().render();
    JsonNode policy = chart.one("NetworkPolicy").path("spec");

    JsonNode memberRule = ingressRuleFor(policy, "hazelcast");
    assertThat(memberRule.path("from")).hasSize(1);
    assertThat(memberRule.path("from").path(0).has("podSelector")).isTrue();
    // REST from anywhere: a rule with ports and no `from` admits every source.
    JsonNode restRule = ingressRuleFor(policy, "http");
    assertThat(restRule.has("from")).isFalse();
  }

  @Test
  void template_memberClientsFrom_admitsSdkClientsOnTheMemberPortOnly() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .values(
                "networkPolicy: {restFromAnywhere: false, memberClientsFrom:"
                    + " [{podSelector: {matchLabels: {app: shop}}}]}")
            .render();
    JsonNode policy = chart.one("NetworkPolicy").path("spec");

    JsonNode memberFrom = ingressRuleFor(policy, "hazelcast").path("from");
    assertThat(memberFrom).hasSize(2);
    assertThat(memberFrom.path(1).path("podSelector").path("matchLabels").path("app").asText())
        .isEqualTo("shop");
    assertThat(ingressRuleFor(policy, "http").path("from").findValuesAsText("app")).isEmpty();
  }

  @Test
  void template_existingSecret_usesItAndCreatesNone() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("auth.existingSecret", "ops-sluice-token")
            .set("auth.existingSecretKey", "token")
            .render();
    JsonNode token = env(chart.gridNodeContainer()).get("SLUICE_ADMIN_TOKEN");

    assertThat(chart.has("Secret")).isFalse();
    assertThat(token.path("valueFrom").path("secretKeyRef").path("name").asText())
        .isEqualTo("ops-sluice-token");
    assertThat(token.path("valueFrom").path("secretKeyRef").path("key").asText())
        .isEqualTo("token");
    assertThat(SluiceChart.CLUSTER.requests()).as("no lookup needed").isEmpty();
  }

  @Test
  void template_tokenAndExistingSecretBoth_isRefusedWithAReason() {
    String error =
        SluiceChart.withDefaults()
            .set("auth.adminToken", "s3cret")
            .set("auth.existingSecret", "ops-sluice-token")
            .renderError();

    assertThat(error).contains("set auth.adminToken or auth.existingSecret, not both");
  }

  @Test
  void template_adminTokenGiven_storesItAndRollsPodsWhenItChanges() {
    RenderedChart first = SluiceChart.withDefaults().set("auth.adminToken", "s3cret-one").render();
    RenderedChart second = SluiceChart.withDefaults().set("auth.adminToken", "s3cret-two").render();

    assertThat(decodedToken(first)).isEqualTo("s3cret-one");
    assertThat(podAnnotations(first).path("checksum/admin-token").asText())
        .isNotEqualTo(podAnnotations(second).path("checksum/admin-token").asText())
        .doesNotContain("s3cret");
  }

  @Test
  void template_noTokenOnFirstInstall_generatesALongRandomOne() {
    String first = decodedToken(SluiceChart.withDefaults().render());
    String second = decodedToken(SluiceChart.withDefaults().render());

    assertThat(first).hasSize(40).matches("[A-Za-z0-9]+");
    assertThat(second).isNotEqualTo(first);
    assertThat(SluiceChart.CLUSTER.requests())
        .contains("GET /api/v1/namespaces/limits/secrets/rl-sluice-admin");
  }

  @Test
  void template_noTokenOnUpgrade_keepsTheTokenGeneratedAtInstall() {
    SluiceChart.CLUSTER.putSecret(
        "limits", "rl-sluice-admin", Map.of("admin-token", "generated-at-install"));

    assertThat(decodedToken(SluiceChart.withDefaults().render())).isEqualTo("generated-at-install");
  }

  @Test
  void template_insecure_setsNoTokenAndSaysSo() {
    RenderedChart chart = SluiceChart.withDefaults().set("auth.insecure", true).render();
    Map<String, JsonNode> env = env(chart.gridNodeContainer());

    assertThat(chart.has("Secret")).isFalse();
    assertThat(env).doesNotContainKey("SLUICE_ADMIN_TOKEN");
    assertThat(env.get("SLUICE_INSECURE").path("value").asText()).isEqualTo("true");
  }

  @Test
  void template_autoscaling_leavesReplicasToTheAutoscaler() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("autoscaling.enabled", true)
            .set("autoscaling.minReplicas", 3)
            .set("autoscaling.maxReplicas", 7)
            .render();
    JsonNode hpa = chart.one("HorizontalPodAutoscaler").path("spec");

    assertThat(chart.one("StatefulSet").path("spec").has("replicas")).isFalse();
    assertThat(hpa.path("scaleTargetRef").path("kind").asText()).isEqualTo("StatefulSet");
    assertThat(hpa.path("scaleTargetRef").path("name").asText()).isEqualTo(FULLNAME);
    assertThat(hpa.path("minReplicas").asInt()).isEqualTo(3);
    assertThat(hpa.path("maxReplicas").asInt()).isEqualTo(7);
    // One node at a time on the way down.
    assertThat(
            hpa.path("behavior").path("scaleDown").path("policies").path(0).path("value").asInt())
        .isEqualTo(1);
  }

  @Test
  void template_autoscalingWithTcpIp_isRefusedWithAReason() {
    String error =
        SluiceChart.withDefaults()
            .set("autoscaling.enabled", true)
            .set("cluster.discovery", "tcp-ip")
            .renderError();

    assertThat(error)
        .contains("autoscaling.enabled needs cluster.discovery kubernetes-dns or kubernetes-api");
  }

  @Test
  void template_loadBalancer_exposesTheClientServiceOnly() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("service.type", "LoadBalancer")
            .values("service: {loadBalancerSourceRanges: [10.0.0.0/8]}")
            .set("service.externalTrafficPolicy", "Local")
            .render();
    JsonNode client = chart.named("Service", FULLNAME).path("spec");

    assertThat(client.path("type").asText()).isEqualTo("LoadBalancer");
    assertThat(client.path("loadBalancerSourceRanges").path(0).asText()).isEqualTo("10.0.0.0/8");
    assertThat(client.path("externalTrafficPolicy").asText()).isEqualTo("Local");
    assertThat(chart.named("Service", HEADLESS).path("spec").path("clusterIP").asText())
        .isEqualTo("None");
  }

  @Test
  void template_hardAntiAffinity_requiresOneNodePerHost() {
    JsonNode affinity =
        SluiceChart.withDefaults()
            .set("antiAffinity", "hard")
            .render()
            .one("StatefulSet")
            .path("spec")
            .path("template")
            .path("spec")
            .path("affinity")
            .path("podAntiAffinity");

    assertThat(affinity.has("requiredDuringSchedulingIgnoredDuringExecution")).isTrue();
    assertThat(affinity.has("preferredDuringSchedulingIgnoredDuringExecution")).isFalse();
  }

  // ---------------------------------------------------------------------------------------------

  private static JsonNode podTemplate(RenderedChart chart) {
    return chart.one("StatefulSet").path("spec").path("template");
  }

  private static String checksum(RenderedChart chart) {
    return podAnnotations(chart).path("checksum/config").asText();
  }

  private static JsonNode podAnnotations(RenderedChart chart) {
    return chart
        .one("StatefulSet")
        .path("spec")
        .path("template")
        .path("metadata")
        .path("annotations");
  }

  private static String decodedToken(RenderedChart chart) {
    String encoded = chart.one("Secret").path("data").path("admin-token").asText();
    return new String(
        java.util.Base64.getDecoder().decode(encoded), java.nio.charset.StandardCharsets.UTF_8);
  }

  static Map<String, Integer> containerPorts(JsonNode container) {
    Map<String, Integer> ports = new java.util.LinkedHashMap<>();
    container
        .path("ports")
        .forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
    return ports;
  }

  /** [path, port] of an HTTP probe. */
  private static List<String> probe(JsonNode container, String probe) {
    JsonNode httpGet = container.path(probe).path("httpGet");
    return List.of(httpGet.path("path").asText(), httpGet.path("port").asText());
  }

  private static JsonNode port(JsonNode serviceSpec, String name) {
    for (JsonNode port : serviceSpec.path("ports")) {
      if (name.equals(port.path("name").asText())) {
        return port;
      }
    }
    throw new AssertionError("no port " + name + " in " + serviceSpec);
  }

  private static String mountPath(JsonNode container, String volume) {
    for (JsonNode mount : container.path("volumeMounts")) {
      if (volume.equals(mount.path("name").asText())) {
        return mount.path("mountPath").asText();
      }
    }
    throw new AssertionError("no mount of " + volume + " in " + container);
  }

  private static JsonNode volume(JsonNode podSpec, String name) {
    for (JsonNode volume : podSpec.path("volumes")) {
      if (name.equals(volume.path("name").asText())) {
        return volume;
      }
    }
    throw new AssertionError("no volume " + name + " in " + podSpec);
  }

  private static JsonNode ingressRuleFor(JsonNode policySpec, String portName) {
    for (JsonNode rule : policySpec.path("ingress")) {
      if (portName.equals(rule.path("ports").path(0).path("port").asText())) {
        return rule;
      }
    }
    throw new AssertionError("no ingress rule for port " + portName + " in " + policySpec);
  }
}
