package dev.sendlog.service.log;

import java.util.List;
import java.util.UUID;

/**
 * One page of a search: at most the limit of items, newest first, and where the next page starts (null on the last).
 * A page may hold fewer items than the limit and still have a next one: a search by a status in flight examines a
 * bounded number of messages per page.
 */
public record SearchResult(List<MessageDetails> items, UUID next) {}
