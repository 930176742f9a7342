package dev.sendlog.service.log;

import dev.sendlog.events.StoredEvent;
import dev.sendlog.projections.MessageState;
import java.util.List;

/** A message with its whole history and the state folded from it. */
public record MessageDetails(MessageRow row, List<StoredEvent> events, MessageState state) {}
