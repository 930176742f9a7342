package dev.sendlog.simulator.smpp;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jsmpp.DefaultPDUSender;
import org.jsmpp.PDUStringException;
import org.jsmpp.bean.DataCoding;
import org.jsmpp.bean.ESMClass;
import org.jsmpp.bean.NumberingPlanIndicator;
import org.jsmpp.bean.OptionalParameter;
import org.jsmpp.bean.RegisteredDelivery;
import org.jsmpp.bean.TypeOfNumber;

/**
 * jsmpp's PDU writer with the simulator's faults: jsmpp's server session always answers enquire_link and
 * submit_sm itself, so the only place to leave an answer out is where it is written. Also tells the receipt
 * sender when a deliver_sm has left (jsmpp writes it on the calling thread, then waits for the response), so
 * that a submit_sm_resp can be held back until its receipt is on the wire.
 */
final class SmscPduSender extends DefaultPDUSender {
    /** Run on the thread that wrote a deliver_sm, right after the write; set by the receipt sender. */
    static final ThreadLocal<Runnable> DELIVER_WRITTEN = new ThreadLocal<>();

    private final BooleanSupplier answerEnquireLink;
    private final Set<String> responsesToLose;

    /**
     * @param answerEnquireLink whether enquire_link_resp is written, asked at each enquire_link
     * @param responsesToLose   message ids whose submit_sm_resp is not written (each removed when its turn comes)
     */
    SmscPduSender(BooleanSupplier answerEnquireLink, Set<String> responsesToLose) {
        this.answerEnquireLink = answerEnquireLink;
        this.responsesToLose = responsesToLose;
    }

    @Override
    public byte[] sendEnquireLinkResp(OutputStream os, int sequenceNumber) throws IOException {
        if (!answerEnquireLink.getAsBoolean()) {
            return new byte[0];
        }
        return super.sendEnquireLinkResp(os, sequenceNumber);
    }

    @Override
    public byte[] sendSubmitSmResp(
            OutputStream os, int sequenceNumber, String messageId, OptionalParameter... optionalParameters)
            throws PDUStringException, IOException {
        if (responsesToLose.remove(messageId)) {
            return new byte[0];
        }
        return super.sendSubmitSmResp(os, sequenceNumber, messageId, optionalParameters);
    }

    @Override
    public byte[] sendDeliverSm(
            OutputStream os,
            int sequenceNumber,
            String serviceType,
            TypeOfNumber sourceAddrTon,
            NumberingPlanIndicator sourceAddrNpi,
            String sourceAddr,
            TypeOfNumber destAddrTon,
            NumberingPlanIndicator destAddrNpi,
            String destinationAddr,
            ESMClass esmClass,
            byte protocolId,
            byte priorityFlag,
            RegisteredDelivery registeredDelivery,
            DataCoding dataCoding,
            byte[] shortMessage,
            OptionalParameter... optionalParameters)
            throws PDUStringException, IOException {
        byte[] written = super.sendDeliverSm(
                os,
                sequenceNumber,
                serviceType,
                sourceAddrTon,
                sourceAddrNpi,
                sourceAddr,
                destAddrTon,
                destAddrNpi,
                destinationAddr,
                esmClass,
                protocolId,
                priorityFlag,
                registeredDelivery,
                dataCoding,
                shortMessage,
                optionalParameters);
        Runnable hook = DELIVER_WRITTEN.get();
        if (hook != null) {
            hook.run();
        }
        return written;
    }
}
