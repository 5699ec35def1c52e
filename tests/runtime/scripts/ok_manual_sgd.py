"""A language-model step in the spirit of pytorch/examples' word_language_model: manual SGD through `.data`."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)
device = torch.device("cuda" if args.cuda and torch.cuda.is_available() else "cpu")


class RNNModel(nn.Module):
    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.encoder = nn.Embedding(vocab, hidden)
        self.rnn = nn.LSTM(hidden, hidden)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        output, state = self.rnn(self.encoder(tokens), state)
        return self.decoder(output), state

    def init_hidden(self, batch: int):
        weight = next(self.parameters())
        return weight.new_zeros(1, batch, 16), weight.new_zeros(1, batch, 16)


corpus = torch.randint(0, 50, (400,))
model = RNNModel(50, 16).to(device)
criterion = nn.CrossEntropyLoss()
lr = 2.0
for epoch in range(args.epochs):
    state = model.init_hidden(4)
    data = corpus.view(4, -1).t().contiguous().to(device)
    for i in range(0, data.size(0) - 1, 10):
        tokens, targets = data[i:i + 10], data[i + 1:i + 11]
        tokens = tokens[: len(targets)]
        state = tuple(s.detach() for s in state)
        model.zero_grad()
        output, state = model(tokens, state)
        loss = criterion(output.view(-1, 50), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
    print(f"epoch {epoch} loss {loss.item():.4f}")
