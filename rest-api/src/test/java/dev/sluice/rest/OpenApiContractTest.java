package dev.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.core.spec.RuleSpec;
import dev.sluice.core.stats.ClusterStats;
import dev.sluice.core.stats.CommandTotals;
import dev.sluice.core.stats.ConnectedClient;
import dev.sluice.core.stats.FrontEndTotals;
import dev.sluice.core.stats.GridView;
import dev.sluice.core.stats.KeyCount;
import dev.sluice.core.stats.LatencySeries;
import dev.sluice.core.stats.LeaseTotals;
import dev.sluice.core.stats.MemberFacts;
import dev.sluice.core.stats.RuleRates;
import io.javalin.router.Endpoint;
import io.javalin.router.ParsedEndpoint;
import io.javalin.security.Roles;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code openapi.json} is kept by hand; these tests hold it to the code both ways: every route in
 * the document is served and every served route is in the document, every schema's properties are
 * exactly its record's components, admin routes are exactly those marked with a security
 * requirement, and the enums list exactly the error codes and algorithms the code has.
 */
class OpenApiContractTest {
  private static final Set<String> HTTP_METHODS =
      Set.of("get", "put", "post", "delete", "patch", "head", "options");

  /** Every record that appears in a request or an answer, by its schema name. */
  private static final List<Class<? extends Record>> BODIES =
      List.of(
          CheckRequest.class,
          BatchRequest.class,
          CommitRequest.class,
          DecisionBody.class,
          BatchBody.class,
          RuleSpec.class,
          RulesBody.class,
          HealthBody.class,
          ErrorBody.class,
          LimitSpec.class,
          StatsBody.class,
          NodeBody.class,
          RuleInfo.class,
          LimitedKeysBody.class,
          RuleKeys.class,
          KeyCount.class,
          ClusterStats.class,
          RuleRates.class,
          LatencySeries.class,
          LeaseTotals.class,
          FrontEndTotals.class,
          CommandTotals.class,
          GridView.class,
          MemberFacts.class,
          ConnectedClient.class);

  private static ApiServer server;
  private static JsonNode openApi;

  @BeforeAll
  static void start() throws IOException {
    server = new ApiServer();
    try (InputStream in = SluiceApi.class.getResourceAsStream("openapi.json")) {
      openApi = new ObjectMapper().readTree(in);
    }
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void routes_documentedEqualsServed() {
    assertThat(documentedRoutes()).isEqualTo(servedRoutes());
  }

  @Test
  void adminRoutes_documentedWithSecurityEqualsServedWithAdminRole() {
    Set<String> documented = new TreeSet<>();
    forEachOperation(
        (route, operation) -> {
          if (operation.has("security")) {
            documented.add(route);
          }
        });
    Set<String> served =
        endpoints().stream()
            .filter(endpoint -> roles(endpoint).contains(SluiceApi.Role.ADMIN))
            .map(OpenApiContractTest::route)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(documented).isEqualTo(served).isNotEmpty();
  }

  @Test
  void schemas_areExactlyTheBodyRecords() {
    Set<String> schemas = new TreeSet<>();
    openApi.get("components").get("schemas").fieldNames().forEachRemaining(schemas::add);
    schemas.remove("Algorithm");
    assertThat(schemas)
        .isEqualTo(
            BODIES.stream()
                .map(Class::getSimpleName)
                .collect(Collectors.toCollection(TreeSet::new)));
  }

  @Test
  void schemaProperties_equalRecordComponents() {
    for (Class<? extends Record> body : BODIES) {
      JsonNode schema = openApi.get("components").get("schemas").get(body.getSimpleName());
      Set<String> documented = new TreeSet<>();
      schema.get("properties").fieldNames().forEachRemaining(documented::add);
      Set<String> components =
          Arrays.stream(body.getRecordComponents())
              .map(RecordComponent::getName)
              .collect(Collectors.toCollection(TreeSet::new));
      assertThat(documented).as(body.getSimpleName()).isEqualTo(components);
      for (JsonNode required : schema.path("required")) {
        assertThat(components).as(body.getSimpleName()).contains(required.asText());
      }
    }
  }

  @Test
  void errorCodes_documentedEqualApiErrorConstants() throws IllegalAccessException {
    Set<String> documented = new TreeSet<>();
    openApi
        .get("components")
        .get("schemas")
        .get("ErrorBody")
        .get("properties")
        .get("error")
        .get("enum")
        .forEach(code -> documented.add(code.asText()));
    Set<String> constants = new TreeSet<>();
    for (Field field : ApiError.class.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
        constants.add((String) field.get(null));
      }
    }
    assertThat(documented).isEqualTo(constants);
  }

  @Test
  void decidedBy_documentedEqualTheLocalDecisionMakers() {
    Set<String> documented = new TreeSet<>();
    openApi
        .get("components")
        .get("schemas")
        .get("DecisionBody")
        .get("properties")
        .get("decidedBy")
        .get("enum")
        .forEach(name -> documented.add(name.asText()));
    Set<String> local = new TreeSet<>();
    for (Decision.DecidedBy by : Decision.DecidedBy.values()) {
      String wire = DecisionBody.decidedBy(by);
      if (wire != null) {
        local.add(wire);
      }
    }
    assertThat(documented).isEqualTo(local);
    assertThat(openApi.at("/components/schemas/DecisionBody/required").toString())
        .as("decidedBy is absent when the limiter decided")
        .doesNotContain("decidedBy");
  }

  @Test
  void algorithms_documentedEqualAlgorithmWireNames() {
    Set<String> documented = new TreeSet<>();
    openApi
        .get("components")
        .get("schemas")
        .get("Algorithm")
        .get("enum")
        .forEach(name -> documented.add(name.asText()));
    assertThat(documented)
        .isEqualTo(
            Arrays.stream(Algorithm.values())
                .map(Algorithm::wireName)
                .collect(Collectors.toCollection(TreeSet::new)));
  }

  @Test
  void references_allResolve() {
    List<String> refs = new ArrayList<>();
    collectRefs(openApi, refs);
    assertThat(refs).isNotEmpty();
    for (String ref : refs) {
      assertThat(ref).startsWith("#/");
      assertThat(openApi.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
    }
  }

  @Test
  void servedDocument_isTheResource() {
    assertThat(server.get("/openapi.json").json()).isEqualTo(openApi);
  }

  private static Set<String> documentedRoutes() {
    Set<String> routes = new TreeSet<>();
    forEachOperation((route, operation) -> routes.add(route));
    return routes;
  }

  /**
   * The served routes but HEAD: every GET route also answers HEAD, as HTTP defines it (the GET's
   * answer without a body, HeadRequestTest), which OpenAPI does not list route by route.
   */
  private static Set<String> servedRoutes() {
    return endpoints().stream()
        .map(OpenApiContractTest::route)
        .filter(route -> !route.startsWith("HEAD "))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<Endpoint> endpoints() {
    return server.api.javalin().unsafe.internalRouter.allHttpHandlers().stream()
        .map((ParsedEndpoint parsed) -> parsed.endpoint)
        .filter(endpoint -> HTTP_METHODS.contains(endpoint.method.name().toLowerCase(Locale.ROOT)))
        .collect(Collectors.toList());
  }

  private static Set<?> roles(Endpoint endpoint) {
    Roles roles = endpoint.metadata(Roles.class);
    return roles == null ? Set.of() : roles.getRoles();
  }

  private static String route(Endpoint endpoint) {
    return endpoint.method.name().toUpperCase(Locale.ROOT) + " " + endpoint.path;
  }

  private interface OperationVisitor {
    void visit(String route, JsonNode operation);
  }

  private static void forEachOperation(OperationVisitor visitor) {
    for (Map.Entry<String, JsonNode> path : openApi.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
        if (HTTP_METHODS.contains(operation.getKey())) {
          visitor.visit(
              operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey(),
              operation.getValue());
        }
      }
    }
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (field.getKey().equals("$ref")) {
          refs.add(field.getValue().asText());
        } else {
          collectRefs(field.getValue(), refs);
        }
      }
    } else if (node.isArray()) {
      node.forEach(element -> collectRefs(element, refs));
    }
  }
}
