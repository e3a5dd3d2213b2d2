package dev.sluice.core.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.UnknownRuleException;
import java.io.IOException;
import java.util.Arrays;

/**
 * What a processor answers for one key: one result per request it carried, in order. A result is a
 * {@link Decision} or an error the caller turns into an exception ({@link UnknownRuleException},
 * {@link InvalidPolicyException}). Errors travel as codes rather than thrown exceptions so that a
 * batch answers every request and no Java serialization of exceptions is needed.
 */
public final class KeyOutcome implements IdentifiedDataSerializable {
  static final byte OK = 0;
  static final byte UNKNOWN_RULE = 1;
  static final byte INVALID = 2;

  private byte[] codes;
  private Decision[] decisions;
  // For UNKNOWN_RULE the rule name; for INVALID the field at fault.
  private String[] subjects;
  private String[] messages;

  /** For deserialization. */
  public KeyOutcome() {
    this(0);
  }

  KeyOutcome(int size) {
    codes = new byte[size];
    decisions = new Decision[size];
    subjects = new String[size];
    messages = new String[size];
  }

  static KeyOutcome unknownRule(int size, String rule) {
    KeyOutcome outcome = new KeyOutcome(size);
    for (int i = 0; i < size; i++) {
      outcome.setError(i, UNKNOWN_RULE, rule, "unknown rule '" + rule + "'");
    }
    return outcome;
  }

  static KeyOutcome invalid(int size, String field, String message) {
    KeyOutcome outcome = new KeyOutcome(size);
    for (int i = 0; i < size; i++) {
      outcome.setError(i, INVALID, field, message);
    }
    return outcome;
  }

  void setDecision(int index, Decision decision) {
    codes[index] = OK;
    decisions[index] = decision;
  }

  void setError(int index, byte code, String subject, String message) {
    codes[index] = code;
    subjects[index] = subject;
    messages[index] = message;
  }

  public int size() {
    return codes.length;
  }

  /**
   * The decision for request {@code index}.
   *
   * @throws UnknownRuleException if the rule was not defined on the member that decided
   * @throws InvalidPolicyException if the request could not be honoured (e.g. cost above capacity)
   */
  public Decision decision(int index) {
    return switch (codes[index]) {
      case OK -> decisions[index];
      case UNKNOWN_RULE -> throw new UnknownRuleException(subjects[index]);
      default -> throw new InvalidPolicyException(subjects[index], stripField(index));
    };
  }

  private String stripField(int index) {
    String prefix = subjects[index] + ": ";
    String message = messages[index];
    return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.KEY_OUTCOME;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    WireFormat.writeVarInt(out, codes.length);
    for (int i = 0; i < codes.length; i++) {
      out.writeByte(codes[i]);
      if (codes[i] == OK) {
        WireFormat.writeDecision(out, decisions[i]);
      } else {
        out.writeString(subjects[i]);
        out.writeString(messages[i]);
      }
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int size = WireFormat.readVarInt(in);
    if (size < 0 || size > AcquireProcessor.MAX_REQUESTS_PER_KEY) {
      throw new IOException("implausible outcome size " + size);
    }
    codes = new byte[size];
    decisions = new Decision[size];
    subjects = new String[size];
    messages = new String[size];
    for (int i = 0; i < size; i++) {
      codes[i] = in.readByte();
      if (codes[i] == OK) {
        decisions[i] = WireFormat.readDecision(in);
      } else {
        subjects[i] = in.readString();
        messages[i] = in.readString();
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyOutcome other
        && Arrays.equals(codes, other.codes)
        && Arrays.equals(decisions, other.decisions)
        && Arrays.equals(subjects, other.subjects)
        && Arrays.equals(messages, other.messages);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(codes) * 31 + Arrays.hashCode(decisions);
  }

  @Override
  public String toString() {
    return "KeyOutcome{codes="
        + Arrays.toString(codes)
        + ", decisions="
        + Arrays.toString(decisions)
        + ", messages="
        + Arrays.toString(messages)
        + '}';
  }
}
