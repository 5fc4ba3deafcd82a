package io.tributary.itests.jmsresources;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code POST /send?via=injected|defined&queue=q&outcome=commit|rollback} with a text body: the body is sent to
 * {@code q} by {@link InjectedContextSender} or {@link DefinedFactorySender} in a transaction with that outcome; 204
 * once the transaction has ended.
 */
@WebServlet("/send")
public class JmsResourcesServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private InjectedContextSender injected;

    @EJB
    private DefinedFactorySender defined;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String via = request.getParameter("via");
        String outcome = request.getParameter("outcome");
        if (!"commit".equals(outcome) && !"rollback".equals(outcome)
                || !"injected".equals(via) && !"defined".equals(via)) {
            response.sendError(HttpServletResponse.SC_BAD_REQUEST, "via is injected or defined, outcome is commit"
                    + " or rollback");
            return;
        }
        String queue = request.getParameter("queue");
        String text = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean rollback = "rollback".equals(outcome);
        if ("injected".equals(via)) {
            injected.send(queue, text, rollback);
        } else {
            defined.send(queue, text, rollback);
        }
        response.setStatus(HttpServletResponse.SC_NO_CONTENT);
    }
}
