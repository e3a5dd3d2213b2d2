package dev.sluice.example;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Service;

/** Sends the invitations: the side effect a shadow ban skips (here the e-mails are only kept). */
@Service
public class Mailer {
  private final List<String> sent = new CopyOnWriteArrayList<>();

  public void send(String email) {
    sent.add(email);
  }

  /** The e-mails sent so far. */
  public List<String> sent() {
    return List.copyOf(sent);
  }
}
