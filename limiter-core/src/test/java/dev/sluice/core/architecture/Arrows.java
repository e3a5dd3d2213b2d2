package dev.sluice.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.conditions.ArchConditions;
import java.nio.file.Path;

/**
 * The arrows of docs/architecture.md as ArchUnit rules, defined once and checked by each module's
 * {@code ArchitectureTest} against its own main classes:
 *
 * <pre>
 *   limiter-core ← rest-api ← grid-node        limiter-core ← client-sdk
 *   rest-api: no Hazelcast (outages arrive as LimiterUnavailableException)
 *   algorithm: pure (the model and the JDK)    decision, backend, lease, pipeline, local: no Hazelcast
 *   no package cycles: every package stands above all that it imports
 *   Hazelcast internals: dev.sluice.core.grid.transport only
 *   client, REST, node and front ends: no dev.sluice.core.algorithm (through the pipeline)
 *   every RateLimiter is a PipelineRateLimiter: optimizations decorate its Backend seam
 * </pre>
 */
public final class Arrows {
  private Arrows() {}

  /** Hazelcast's internal packages: what a Hazelcast upgrade may change without notice. */
  private static final String[] HAZELCAST_INTERNALS = {
    "com.hazelcast.internal..", "com.hazelcast..impl.."
  };

  /** The algorithms are pure functions: they know the model (Limit, Decision, ...) and the JDK. */
  public static final ArchRule ALGORITHMS_ARE_PURE =
      classes()
          .that()
          .resideInAPackage("dev.sluice.core.algorithm..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage(
              "java..", "dev.sluice.core", "dev.sluice.core.algorithm..", "org.jspecify..")
          .because("algorithms are pure functions of (state, now, permits): docs/architecture.md");

  /** The decision pipeline and the local runtime are free of Hazelcast: a runtime is a Backend. */
  public static final ArchRule PIPELINE_KNOWS_NO_HAZELCAST =
      noClasses()
          .that()
          .resideInAnyPackage(
              "dev.sluice.core",
              "dev.sluice.core.algorithm..",
              "dev.sluice.core.decision..",
              "dev.sluice.core.backend..",
              "dev.sluice.core.lease..",
              "dev.sluice.core.pipeline..",
              "dev.sluice.core.local..",
              "dev.sluice.core.spec..",
              "dev.sluice.core.metrics..",
              "dev.sluice.core.stats..",
              "dev.sluice.core.rules..",
              "dev.sluice.core.config..",
              "dev.sluice.core.region..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("com.hazelcast..")
          .because(
              "the decision pipeline lives in limiter-core, free of Hazelcast: docs/architecture.md");

  /** The core knows nothing of its front ends. */
  public static final ArchRule CORE_KNOWS_NO_FRONT_END =
      noClasses()
          .that()
          .resideInAPackage("dev.sluice.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.sluice.rest..",
              "dev.sluice.node..",
              "dev.sluice.client..",
              "io.javalin..",
              "jakarta.servlet..",
              "org.springframework..",
              "io.grpc..")
          .because("limiter-core is used by every front end and knows none of them");

  /** The client SDK knows the core, not the REST API or the grid node. */
  public static final ArchRule CLIENT_KNOWS_NO_REST_OR_NODE =
      noClasses()
          .that()
          .resideInAPackage("dev.sluice.client..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.sluice.rest..", "dev.sluice.node..")
          .because("limiter-core ← client-sdk: docs/architecture.md");

  /** The REST API knows the core, not the node that serves it or the client SDK. */
  public static final ArchRule REST_KNOWS_NO_NODE_OR_CLIENT =
      noClasses()
          .that()
          .resideInAPackage("dev.sluice.rest..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.sluice.node..", "dev.sluice.client..")
          .because("limiter-core ← rest-api ← grid-node: docs/architecture.md");

  /**
   * The REST API knows no Hazelcast: the grid runtime turns its outages into the core's {@code
   * LimiterUnavailableException}, which the API maps to 503 in its one exception map.
   */
  public static final ArchRule REST_KNOWS_NO_HAZELCAST =
      noClasses()
          .that()
          .resideInAPackage("dev.sluice.rest..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("com.hazelcast..")
          .because(
              "REST is a thin skin over the core: an outage reaches it as"
                  + " LimiterUnavailableException (docs/architecture.md)");

  /**
   * Front ends (REST, the node and its Envoy and Redis-protocol front ends, the client SDK and its
   * gates) go through the pipeline: they turn their wire format into checks and write its answers
   * back, and never apply, size or read an algorithm themselves, so that what a policy means is
   * decided in one place for every surface. No class is excepted: the client's failure policies and
   * the one header writer read the model ({@code Limit.capacity()}, {@code Policy.capacity()}, the
   * decision's binding limit), not an algorithm.
   */
  public static final ArchRule SURFACES_GO_THROUGH_THE_PIPELINE =
      noClasses()
          .that()
          .resideInAnyPackage("dev.sluice.client..", "dev.sluice.rest..", "dev.sluice.node..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.sluice.core.algorithm..")
          .because(
              "front ends parse their wire format into the pipeline's checks and write its answers;"
                  + " what a policy admits is the pipeline's to say (docs/architecture.md)");

  /**
   * No two packages import each other, directly or round a loop: each package stands above all that
   * it imports, so a newcomer can read the code from the bottom (the model, the algorithms, the
   * decision) up (the pipeline, the grid, the front ends) without meeting a name from above.
   */
  public static final ArchRule PACKAGES_FREE_OF_CYCLES =
      slices()
          .matching("dev.sluice.(**)")
          .should()
          .beFreeOfCycles()
          .because("packages are layered by where their code runs: docs/architecture.md");

  /** Hazelcast's internal APIs only behind the grid transport. */
  public static final ArchRule HAZELCAST_INTERNALS_ONLY_IN_TRANSPORT =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.sluice.core.grid.transport..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(HAZELCAST_INTERNALS)
          .because(
              "the grid's transport is the only place allowed Hazelcast's internal"
                  + " APIs, behind GridTransport, with a public-API twin");

  /**
   * Every limiter is a pipeline over a {@code BackendStack}: what a runtime adds in front of its
   * storage (leasing, the denied-until cache, the failure policy, batching) decorates the narrow
   * {@code Backend} seam, built in one place in one order, never the wide {@code RateLimiter}
   * interface, whose decorators needed timed twins and side channels to pass a lease's answer up.
   */
  public static final ArchRule LIMITERS_ARE_PIPELINES =
      noClasses()
          .that()
          .doNotHaveFullyQualifiedName("dev.sluice.core.pipeline.PipelineRateLimiter")
          .should(
              ArchConditions.have(
                  DescribedPredicate.describe(
                      "RateLimiter among the interfaces they declare",
                      (JavaClass javaClass) ->
                          javaClass.getRawInterfaces().stream()
                              .anyMatch(i -> i.getName().equals("dev.sluice.core.RateLimiter")))))
          .because(
              "client-side optimizations are decorators of the pipeline's Backend seam, built in"
                  + " one place (BackendStack), not of the wide RateLimiter interface: a limiter"
                  + " is a PipelineRateLimiter");

  /**
   * The module's main classes as compiled ({@code target/classes}, relative to the module, where
   * tests run), limited to {@code packageName}: reading that one directory is fast, where scanning
   * the classpath for a package opens every jar.
   */
  public static JavaClasses mainClasses(String packageName) {
    return new ClassFileImporter()
        .importPath(Path.of("target", "classes"))
        .that(
            DescribedPredicate.describe(
                "in " + packageName,
                javaClass -> javaClass.getPackageName().startsWith(packageName)));
  }
}
