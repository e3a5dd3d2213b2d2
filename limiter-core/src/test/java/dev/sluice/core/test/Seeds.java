package dev.sluice.core.test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * The one seed convention of Sluice's randomized tests, in every module: one base seed per run,
 * every random input derived from it, and a failure that says how to replay itself.
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * @ExtendWith(Seeds.class)
 * class SomethingTest {
 *   @Test
 *   void property_randomTraces_holds() {
 *     Random random = Seeds.random();                      // one stream for this test
 *     Seeds.run("gcra", 200, seed -> check(new Random(seed)));  // or one seed per case
 *   }
 * }
 * }</pre>
 *
 * <h2>Where the seeds come from</h2>
 *
 * The <em>base seed</em> is {@code -Dsluice.seed=<n>} if given, else a fresh random one for the
 * JVM. A test's seed is derived from the base seed and the test's JUnit unique id (class, method,
 * and for a parameterized test its invocation); a named seed ({@link #seed(String)}: a thread, a
 * phase, a property) from the test's seed and the name; a case's seed ({@link #run}) from the named
 * seed and the case's index. Nothing depends on which tests ran before, so one test run alone with
 * a full run's base seed draws exactly the seeds it drew in the full run.
 *
 * <h2>What a failure says</h2>
 *
 * A test that drew a seed and fails gets, appended to its failure message (what Maven prints in its
 * summary), the base seed and the command that runs that test again with it:
 *
 * <pre>
 * randomized: base seed 1353076082645937319 (-Dsluice.seed); replay:
 *   ./mvnw -B -pl limiter-core -am test -Dtest=NanoMathTest#mulDiv_agreesWithBigInteger_onBothSidesOf64Bits -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.seed=1353076082645937319
 * </pre>
 *
 * A failing case of {@link #run} also names its index and case seed. Seeds are not printed when the
 * tests pass.
 */
public final class Seeds
    implements BeforeEachCallback, AfterEachCallback, TestExecutionExceptionHandler {

  /** The system property that fixes the base seed. */
  public static final String PROPERTY = "sluice.seed";

  private static final long BASE = baseSeed();

  private static final InheritableThreadLocal<@Nullable Current> CURRENT =
      new InheritableThreadLocal<>();

  /** The test under way on this thread, and whether it drew a seed. */
  private static final class Current {
    final String uniqueId;
    final String testClass;
    final String testMethod;
    volatile boolean drawn;

    Current(String uniqueId, String testClass, String testMethod) {
      this.uniqueId = uniqueId;
      this.testClass = testClass;
      this.testMethod = testMethod;
    }
  }

  /** The base seed of this JVM's run. */
  public static long base() {
    return BASE;
  }

  /** This test's seed. */
  public static long seed() {
    Current current = current();
    current.drawn = true;
    return derive(BASE, current.uniqueId);
  }

  /** This test's seed for {@code name}: a separate stream (a thread, a phase, a property). */
  public static long seed(String name) {
    return derive(seed(), name);
  }

  /** A {@link Random} on this test's seed. */
  public static Random random() {
    return new Random(seed());
  }

  /** A {@link Random} on this test's seed for {@code name}. */
  public static Random random(String name) {
    return new Random(seed(name));
  }

  /**
   * Runs {@code body} for {@code cases} cases, each given its own seed (derived from this test's
   * seed for {@code name}, and the case's index). A failing case fails the test with its name,
   * index and case seed in the message.
   */
  public static void run(String name, int cases, LongConsumer body) {
    long named = seed(name);
    for (int i = 0; i < cases; i++) {
      long caseSeed = derive(named, Integer.toString(i));
      try {
        body.accept(caseSeed);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            name + " failed on case " + i + " (case seed " + caseSeed + "): " + e.getMessage(), e);
      }
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    CURRENT.set(
        new Current(
            context.getUniqueId(),
            context.getRequiredTestClass().getSimpleName(),
            context.getRequiredTestMethod().getName()));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    CURRENT.remove();
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    Current current = CURRENT.get();
    if (current == null || !current.drawn || failure instanceof TestAbortedException) {
      throw failure;
    }
    String message = failure.getMessage();
    String replay =
        replayCommand(
            module(),
            current.testClass,
            current.testMethod,
            BASE,
            Boolean.getBoolean("sluice.reliability"),
            sizingProperties());
    String note = "randomized: base seed " + BASE + " (-D" + PROPERTY + "); replay:\n  " + replay;
    System.err.println(current.testClass + "#" + current.testMethod + " failed; " + note);
    AssertionError withSeed =
        new AssertionError(
            (failure instanceof AssertionError || message == null
                    ? (message == null ? failure.toString() : message)
                    : failure.getClass().getName() + ": " + message)
                + "\n"
                + note,
            failure);
    withSeed.setStackTrace(failure.getStackTrace());
    throw withSeed;
  }

  /**
   * The command that runs one test again with {@code baseSeed}: surefire's {@code -Dtest} for a
   * unit test, failsafe's {@code -Dit.test} for an {@code *IT} class. {@code -am} builds the
   * modules it depends on in the same reactor (never from the local repository).
   */
  static String replayCommand(
      @Nullable String module,
      String testClass,
      String testMethod,
      long baseSeed,
      boolean reliability,
      Map<String, String> sizing) {
    List<String> words = new ArrayList<>(List.of("./mvnw", "-B"));
    if (reliability) {
      words.add("-Preliability");
    }
    if (module != null) {
      words.addAll(List.of("-pl", module, "-am"));
    }
    String test = testClass + "#" + testMethod;
    if (testClass.endsWith("IT")) {
      words.addAll(
          List.of(
              "verify",
              "-Dtest=NoSuchTest",
              "-Dsurefire.failIfNoSpecifiedTests=false",
              "-Dit.test=" + test));
    } else {
      words.addAll(List.of("test", "-Dtest=" + test, "-Dsurefire.failIfNoSpecifiedTests=false"));
    }
    sizing.forEach((name, value) -> words.add("-D" + name + "=" + value));
    words.add("-D" + PROPERTY + "=" + baseSeed);
    return String.join(" ", words);
  }

  /** The module under test: the directory surefire and failsafe run it in. */
  private static @Nullable String module() {
    String dir = System.getProperty("basedir", System.getProperty("user.dir"));
    if (dir == null) {
      return null;
    }
    Path name = Path.of(dir).getFileName();
    return name == null ? null : name.toString();
  }

  /**
   * The {@code sluice.*} properties given on the command line that size a run ({@code
   * sluice.fuzz.requests}, ...): a replay needs them to draw as many inputs.
   */
  private static Map<String, String> sizingProperties() {
    Map<String, String> sizing = new TreeMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("sluice.")
          && !name.equals(PROPERTY)
          && !name.equals("sluice.reliability")
          && !name.equals("sluice.node.jar")) {
        sizing.put(name, System.getProperty(name));
      }
    }
    return sizing;
  }

  private static Current current() {
    Current current = CURRENT.get();
    if (current == null) {
      throw new IllegalStateException(
          "no test under way on this thread: register the extension, @ExtendWith(Seeds.class),"
              + " and draw seeds from the test (or a thread it started)");
    }
    return current;
  }

  private static long baseSeed() {
    String fixed = System.getProperty(PROPERTY);
    if (fixed == null || fixed.isBlank()) {
      return new Random().nextLong();
    }
    try {
      return Long.parseLong(fixed.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-D" + PROPERTY + " must be a long, was '" + fixed + "'");
    }
  }

  /** A seed for {@code name} under {@code parent}: well mixed, the same on every JVM. */
  static long derive(long parent, String name) {
    return mix64(parent ^ mix64(fnv1a64(name)));
  }

  private static long fnv1a64(String text) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  /** SplittableRandom's finalizer (Stafford's variant 13). */
  private static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** For JUnit, which makes the extension: {@code @ExtendWith(Seeds.class)}. */
  public Seeds() {}
}
