package dev.sluice.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Grafana dashboards and the PrometheusRule: off by default, labelled as the stack expects. */
class MonitoringChartTest {

  static RenderedChart withMonitoring() {
    return SluiceChart.withDefaults()
        .set("grafana.dashboards.enabled", true)
        .set("metrics.prometheusRule.enabled", true)
        .set("metrics.prometheusRule.labels.release", "kube-prometheus-stack")
        .render();
  }

  /** The PromQL of every dashboard panel and variable, and of every alert. */
  static List<String> expressions(RenderedChart chart) throws IOException {
    List<String> expressions = new ArrayList<>();
    for (JsonNode dashboard : dashboards(chart)) {
      for (JsonNode panel : dashboard.path("panels")) {
        panel.path("targets").forEach(target -> expressions.add(target.path("expr").asText()));
      }
      for (JsonNode variable : dashboard.at("/templating/list")) {
        if (variable.path("query").has("query")) {
          expressions.add(variable.path("query").path("query").asText());
        }
      }
    }
    for (JsonNode rule : chart.one("PrometheusRule").at("/spec/groups/0/rules")) {
      expressions.add(rule.path("expr").asText());
    }
    return expressions;
  }

  static List<JsonNode> dashboards(RenderedChart chart) throws IOException {
    List<JsonNode> dashboards = new ArrayList<>();
    for (JsonNode configMap : chart.all("ConfigMap")) {
      if (configMap.at("/metadata/labels/grafana_dashboard").asText().equals("1")) {
        for (JsonNode json : configMap.path("data")) {
          dashboards.add(new ObjectMapper().readTree(json.asText()));
        }
      }
    }
    return dashboards;
  }

  @Test
  void defaults_renderNoDashboardsAndNoRules() throws IOException {
    RenderedChart chart = SluiceChart.withDefaults().render();

    assertThat(chart.has("PrometheusRule")).isFalse();
    assertThat(dashboards(chart)).isEmpty();
  }

  @Test
  void dashboards_enabled_threeLabelledConfigMapsOfValidDashboards() throws IOException {
    RenderedChart chart = withMonitoring();

    List<JsonNode> dashboards = dashboards(chart);
    assertThat(dashboards)
        .extracting(d -> d.path("uid").asText())
        .containsExactlyInAnyOrder("sluice-decisions", "sluice-grid", "sluice-front-ends");
    assertThat(dashboards).allSatisfy(d -> assertThat(d.path("panels").size()).isGreaterThan(3));
    assertThat(expressions(chart))
        .anyMatch(e -> e.contains("sluice_decisions_total"))
        .anyMatch(e -> e.contains("sluice_decision_seconds_bucket"))
        .anyMatch(e -> e.contains("sluice_limited_keys"))
        .anyMatch(e -> e.contains("sluice_lease_permits_total"))
        .anyMatch(e -> e.contains("sluice_cluster_members"))
        .anyMatch(e -> e.contains("sluice_client_breaker_open"))
        .anyMatch(e -> e.contains("ratelimit_service_rate_limit_total_hits_total"))
        .anyMatch(e -> e.contains("sluice_resp_commands_total"));
  }

  @Test
  void dashboards_namespaceAndLabels_followTheValues() throws IOException {
    RenderedChart chart =
        SluiceChart.withDefaults()
            .set("grafana.dashboards.enabled", true)
            .set("grafana.dashboards.namespace", "monitoring")
            .set("grafana.dashboards.annotations.grafana_folder", "Sluice")
            .render();

    assertThat(chart.all("ConfigMap"))
        .filteredOn(c -> c.at("/metadata/labels/grafana_dashboard").asText().equals("1"))
        .hasSize(3)
        .allSatisfy(
            c -> {
              assertThat(c.at("/metadata/namespace").asText()).isEqualTo("monitoring");
              assertThat(c.at("/metadata/annotations/grafana_folder").asText()).isEqualTo("Sluice");
            });
  }

  @Test
  void prometheusRule_enabled_hasEveryAlertAndTheStacksLabel() {
    JsonNode rule = withMonitoring().one("PrometheusRule");

    assertThat(rule.at("/metadata/labels/release").asText()).isEqualTo("kube-prometheus-stack");
    List<String> alerts = new ArrayList<>();
    rule.at("/spec/groups/0/rules").forEach(r -> alerts.add(r.path("alert").asText()));
    assertThat(alerts)
        .containsExactly(
            "SluiceRuleDenying",
            "SluiceDecisionLatencyHigh",
            "SluiceMembersMissing",
            "SluiceClientBreakerOpen",
            "SluiceRulesFileRejected");
    assertThat(rule.at("/spec/groups/0/rules/2/expr").asText())
        .contains("sluice_cluster_members{namespace=\"limits\", service=\"rl-sluice\"}")
        .contains("< 3");
  }

  @Test
  void prometheusRule_alertOffAndThresholds_followTheValues() {
    JsonNode rule =
        SluiceChart.withDefaults()
            .set("metrics.prometheusRule.enabled", true)
            .set("metrics.prometheusRule.alerts.clientBreakerOpen.enabled", false)
            .values("metrics: {prometheusRule: {alerts: {decisionLatency: {p99Seconds: 0.2}}}}\n")
            .set("metrics.prometheusRule.selector", "job=\"sluice\"")
            .render()
            .one("PrometheusRule");

    List<String> alerts = new ArrayList<>();
    rule.at("/spec/groups/0/rules").forEach(r -> alerts.add(r.path("alert").asText()));
    assertThat(alerts).doesNotContain("SluiceClientBreakerOpen").hasSize(4);
    assertThat(rule.at("/spec/groups/0/rules/1/expr").asText())
        .contains("{job=\"sluice\"}")
        .contains("> 0.2");
  }
}
