package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.sluice.bench.load.LoadBench;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every main class of the benchmarks module, found by scanning the compiled classes (so a new one
 * is covered), answers {@code --help} with the command its Javadoc documents, and that command
 * names classes that exist. A documented command whose class was renamed or removed fails here, not
 * in the hands of the next reader who runs it.
 */
class MainClassesTest {
  /** A class named in a command: {@code dev.sluice.bench.load.LoadBench}. */
  static final Pattern CLASS_NAME =
      Pattern.compile("\\bdev\\.sluice(?:\\.[a-z][a-z0-9_]*)+\\.[A-Z]\\w*");

  static List<JavaClass> mainClasses() {
    return new ClassFileImporter()
        .importPath(Path.of("target", "classes")).stream()
            .filter(c -> c.tryGetMethod("main", String[].class).isPresent())
            .filter(
                c -> {
                  JavaMethod main = c.getMethod("main", String[].class);
                  return main.getModifiers().contains(JavaModifier.PUBLIC)
                      && main.getModifiers().contains(JavaModifier.STATIC);
                })
            .sorted((a, b) -> a.getName().compareTo(b.getName()))
            .toList();
  }

  @Test
  void theScan_findsTheMainClasses() {
    assertThat(mainClasses())
        .extracting(JavaClass::getName)
        .contains(LoadBench.class.getName())
        .hasSizeGreaterThan(10);
  }

  @TestFactory
  Stream<DynamicTest> help_ofEveryMainClass_printsItsDocumentedCommand() {
    return mainClasses().stream()
        .map(c -> DynamicTest.dynamicTest(c.getSimpleName(), () -> checkHelp(c)));
  }

  private static void checkHelp(JavaClass main) throws Exception {
    assertThat(callsUsage(main))
        .as("%s.main must begin with Usage.printed(args, USAGE)", main.getName())
        .isTrue();
    String documented = documentedCommand(main.getName());
    String printed = help(Class.forName(main.getName()));
    assertThat(printed.strip())
        .as("%s --help must print the command of its Javadoc's <pre> block", main.getName())
        .isEqualTo(documented);
    assertThat(printed).contains(main.getName());
    assertThat(namedClasses(printed))
        .as("classes named in %s's command", main.getSimpleName())
        .allSatisfy(name -> Class.forName(name, false, MainClassesTest.class.getClassLoader()));
  }

  private static boolean callsUsage(JavaClass main) {
    return main.getMethod("main", String[].class).getMethodCallsFromSelf().stream()
        .anyMatch(
            call ->
                call.getTargetOwner().isEquivalentTo(Usage.class)
                    && call.getName().equals("printed"));
  }

  /** What {@code main(--help)} prints, run in this JVM: it must print and return at once. */
  static String help(Class<?> main) throws Exception {
    Method method = main.getMethod("main", String[].class);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertTimeoutPreemptively(
          Duration.ofSeconds(10), () -> method.invoke(null, (Object) new String[] {"--help"}));
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The first {@code <pre>} block of the class's source, as a shell would read it. */
  static String documentedCommand(String className) throws IOException {
    Path source = Path.of("src", "main", "java", className.replace('.', '/') + ".java");
    String text = Files.readString(source, StandardCharsets.UTF_8);
    int start = text.indexOf("<pre>");
    int end = text.indexOf("</pre>", start);
    assertThat(start).as("%s has a <pre> block with its command", source).isNotNegative();
    List<String> lines = new ArrayList<>();
    for (String line : text.substring(start + "<pre>".length(), end).split("\n")) {
      lines.add(line.replaceFirst("^\\s*\\* ?", ""));
    }
    return String.join("\n", lines)
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .strip();
  }

  static List<String> namedClasses(String text) {
    List<String> names = new ArrayList<>();
    Matcher matcher = CLASS_NAME.matcher(text);
    while (matcher.find()) {
      names.add(matcher.group());
    }
    return names;
  }
}
