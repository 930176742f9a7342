package dev.sendlog.simulator.smpp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jsmpp.extra.SessionState;
import org.jsmpp.session.SMPPServerSession;

/**
 * The sessions the simulator holds: every open connection (to close them all), and the system_id of each bound
 * one (to know whose a submit is, and where its receipts may go).
 */
final class SmscSessions {
    private final Map<SMPPServerSession, Boolean> open = new ConcurrentHashMap<>();
    private final Map<SMPPServerSession, String> systemIds = new ConcurrentHashMap<>();
    private final AtomicInteger turn = new AtomicInteger();

    void opened(SMPPServerSession session) {
        open.put(session, Boolean.TRUE);
    }

    /** Registered before the bind_resp goes out, so that a submit right behind it finds its system_id. */
    void binding(SMPPServerSession session, String systemId) {
        systemIds.put(session, systemId);
    }

    void closed(SMPPServerSession session) {
        systemIds.remove(session);
        open.remove(session);
    }

    String systemIdOf(SMPPServerSession session) {
        return systemIds.get(session);
    }

    int bound() {
        int count = 0;
        for (SMPPServerSession session : systemIds.keySet()) {
            if (session.getSessionState().isBound()) {
                count++;
            }
        }
        return count;
    }

    /** A bound session of this system_id that can take a deliver_sm (receiver or transceiver), round robin; or null. */
    SMPPServerSession receiverFor(String systemId) {
        List<SMPPServerSession> candidates = new ArrayList<>();
        systemIds.forEach((session, id) -> {
            if (id.equals(systemId) && session.getSessionState().isReceivable()) {
                candidates.add(session);
            }
        });
        if (candidates.isEmpty()) {
            return null;
        }
        candidates.sort((a, b) -> a.getSessionId().compareTo(b.getSessionId()));
        return candidates.get(Math.floorMod(turn.getAndIncrement(), candidates.size()));
    }

    List<SMPPServerSession> boundSessions() {
        List<SMPPServerSession> bound = new ArrayList<>();
        for (SMPPServerSession session : systemIds.keySet()) {
            if (session.getSessionState().isBound()) {
                bound.add(session);
            }
        }
        return bound;
    }

    List<SMPPServerSession> all() {
        return List.copyOf(open.keySet());
    }

    static boolean isGone(SessionState state) {
        return state == SessionState.CLOSED || state == SessionState.UNBOUND;
    }
}
