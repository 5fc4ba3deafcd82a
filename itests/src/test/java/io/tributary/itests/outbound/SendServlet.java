package io.tributary.itests.outbound;

import java.io.IOException;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code POST /send?queue=q&outcome=commit|rollback} with a text body: {@link TransactionalSender} sends the body to
 * {@code q} in a transaction with that outcome; 204 once the transaction has ended.
 */
@WebServlet("/send")
public class SendServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private TransactionalSender sender;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String outcome = request.getParameter("outcome");
        if (!"commit".equals(outcome) && !"rollback".equals(outcome)) {
            response.sendError(HttpServletResponse.SC_BAD_REQUEST, "outcome is commit or rollback");
            return;
        }
        String text = new String(request.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        sender.send(request.getParameter("queue"), text, "rollback".equals(outcome));
        response.setStatus(HttpServletResponse.SC_NO_CONTENT);
    }
}
