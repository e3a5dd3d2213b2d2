package dev.sluice.core.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryRuleStoreTest {
  private static Rule rule(String name, long limit) {
    return new Rule(name, Policy.of(limit, Duration.ofSeconds(1)));
  }

  @Test
  void all_afterPutsInAnyOrder_isSortedByName() {
    InMemoryRuleStore store = new InMemoryRuleStore();
    store.put(rule("search", 1));
    store.put(rule("api", 2));
    store.put(rule("login", 3));

    assertThat(store.all()).extracting(Rule::name).containsExactly("api", "login", "search");
  }

  @Test
  void nullArguments_throwIllegalArgumentNamingTheArgument() {
    InMemoryRuleStore store = new InMemoryRuleStore();

    assertThatThrownBy(() -> store.put(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("rule")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> store.find(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name")
        .hasMessageContaining("null");
    assertThatThrownBy(() -> store.findAsync(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name");
    assertThatThrownBy(() -> store.remove(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name");
  }

  @Test
  void put_sameName_replaces() {
    InMemoryRuleStore store = InMemoryRuleStore.of(List.of(rule("api", 1)));
    store.put(rule("api", 5));

    assertThat(store.get("api").policy().limit()).isEqualTo(5);
    assertThat(store.all()).hasSize(1);
  }

  @Test
  void remove_thenGet_throwsUnknownRule() {
    InMemoryRuleStore store = InMemoryRuleStore.of(List.of(rule("api", 1)));

    assertThat(store.remove("api")).isTrue();
    assertThat(store.remove("api")).isFalse();
    assertThat(store.find("api")).isEmpty();
    assertThatThrownBy(() -> store.get("api"))
        .isInstanceOf(UnknownRuleException.class)
        .hasMessageContaining("api");
  }

  @Test
  void replaceAll_dropsRulesNotInTheNewSet() {
    InMemoryRuleStore store = InMemoryRuleStore.of(List.of(rule("a", 1), rule("b", 1)));
    store.replaceAll(List.of(rule("b", 2), rule("c", 3)));

    assertThat(store.all()).containsExactly(rule("b", 2), rule("c", 3));
  }
}
