package dev.sluice.helm;

import static dev.sluice.helm.RenderedChart.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The {@code helm test} pod and NOTES.txt, rendered as plain manifests (see SluiceChart). */
class ChartHooksAndNotesTest {

  @BeforeEach
  void emptyCluster() {
    SluiceChart.CLUSTER.clear();
  }

  @Test
  void testPod_fiveReplicas_checksEveryNodeByItsStableNameThenTheClientService() {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("replicaCount", 5)
            .set("rest.port", 9090)
            .renderWithHooksAndNotes();
    JsonNode pod = chart.named("Pod", "rl-sluice-test-cluster");
    JsonNode check = RenderedChart.container(pod, "check-cluster");
    Map<String, JsonNode> env = env(check);

    assertThat(pod.path("spec").path("restartPolicy").asText()).isEqualTo("Never");
    assertThat(env.get("EXPECTED_MEMBERS").path("value").asText()).isEqualTo("5");
    assertThat(env.get("NODE_URLS").path("value").asText().split(" "))
        .containsExactly(
            "http://rl-sluice-0.rl-sluice-members.limits.svc.cluster.local:9090",
            "http://rl-sluice-1.rl-sluice-members.limits.svc.cluster.local:9090",
            "http://rl-sluice-2.rl-sluice-members.limits.svc.cluster.local:9090",
            "http://rl-sluice-3.rl-sluice-members.limits.svc.cluster.local:9090",
            "http://rl-sluice-4.rl-sluice-members.limits.svc.cluster.local:9090");
    assertThat(env.get("SERVICE_URL").path("value").asText())
        .isEqualTo("http://rl-sluice.limits.svc.cluster.local:8080");
    String script = check.path("command").path(2).asText();
    assertThat(script).contains("/health/ready").contains("EXPECTED_MEMBERS");
    assertThat(check.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
  }

  @Test
  void testPod_autoscaling_expectsTheMinimumReplicas() {
    JsonNode check =
        RenderedChart.container(
            SluiceChart.withDefaults()
                .set("autoscaling.enabled", true)
                .set("autoscaling.minReplicas", 2)
                .renderWithHooksAndNotes()
                .named("Pod", "rl-sluice-test-cluster"),
            "check-cluster");

    assertThat(env(check).get("EXPECTED_MEMBERS").path("value").asText()).isEqualTo("2");
    assertThat(env(check).get("NODE_URLS").path("value").asText().split(" ")).hasSize(2);
  }

  @Test
  void testPod_inTheRealChart_isAHelmTestHook() throws Exception {
    String template =
        java.nio.file.Files.readString(
            SluiceChart.CHART_DIR.resolve("templates/tests/test-cluster.yaml"));

    assertThat(template).contains("helm.sh/hook: test");
  }

  @Test
  void notes_clusterIp_tellHowToPortForward() {
    String notes = notes(SluiceChart.withDefaults());

    assertThat(notes)
        .contains("kubectl --namespace limits port-forward service/rl-sluice 8080:8080")
        .contains("http://rl-sluice.limits.svc.cluster.local:8080")
        .contains("get secret rl-sluice-admin")
        .contains("\"rule\": \"login\"");
  }

  @Test
  void notes_nodePort_tellHowToFindTheNodePort() {
    String notes = notes(SluiceChart.withDefaults().set("service.type", "NodePort"));

    assertThat(notes).contains("{.spec.ports[0].nodePort}").doesNotContain("port-forward");
  }

  @Test
  void notes_loadBalancer_tellHowToFindTheAddress() {
    String notes = notes(SluiceChart.withDefaults().set("service.type", "LoadBalancer"));

    assertThat(notes).contains("status.loadBalancer.ingress").doesNotContain("port-forward");
  }

  @Test
  void notes_insecureWithoutNetworkPolicy_warnAboutBoth() {
    String notes =
        notes(
            SluiceChart.withDefaults()
                .set("auth.insecure", true)
                .set("networkPolicy.enabled", false));

    assertThat(notes)
        .contains("WARNING: auth.insecure is true")
        .contains("networkPolicy.enabled is false");
    assertThat(notes(SluiceChart.withDefaults())).doesNotContain("networkPolicy.enabled is false");
  }

  @Test
  void notes_networkPolicyWithoutSdkClients_saysWhereToListThem() {
    assertThat(notes(SluiceChart.withDefaults())).contains("networkPolicy.memberClientsFrom");
    assertThat(
            notes(
                SluiceChart.withDefaults()
                    .values(
                        "networkPolicy: {memberClientsFrom: [{podSelector: {matchLabels: {app:"
                            + " shop}}}]}")))
        .doesNotContain("networkPolicy.memberClientsFrom");
  }

  private static String notes(SluiceChart chart) {
    return chart
        .renderWithHooksAndNotes()
        .named("ConfigMap", SluiceChart.NOTES_CONFIGMAP)
        .path("data")
        .path("notes")
        .asText();
  }
}
