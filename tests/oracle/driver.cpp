// oracle_driver: draws the oracle's programs and runs them in tensorjit; tests/oracle/run.py
// checks what it writes against NumPy and PyTorch (check.py).
//
//   oracle_driver ops                          prints the names of the op table, one a line
//   oracle_driver generate SEED               prints the program of SEED
//   oracle_driver run PROGRAM.txt OUT.npz      runs a program (the minimizer's edits, say)
//   oracle_driver batch DIR SEED...            for each seed, DIR/SEED.txt then DIR/SEED.npz
//   oracle_driver grad_ops | grad_generate SEED | grad_run PROGRAM.txt OUT.npz | grad_batch DIR SEED...
//                                              the same for gradient programs (check_grad.py)
//
// OUT.npz holds `v_<name>` for every input and statement, each evaluated as an output of one
// eval of all of them, and `fused_<name>` for each `out`, from an eval of the outputs alone (as a
// user would write it, fused); a bf16 value as its f32, with `bf16_<name>`. Each statement that
// reads drawn indices then runs with one index outside its axis, and must throw tensorjit::Error
// naming its op, and each statement of a joining op runs with invalid arguments (oracle_ops.hpp,
// Misuse), which must throw tensorjit::Error naming the user's function (exit 2 otherwise). The program text is written before it runs, so a crash leaves a
// .txt without its .npz that names the seed. Exit codes: 0 ran; 2 an eval threw (the message on
// stderr, a finding); 3 the program is not one tensorjit accepts (a minimizer's edit that broke it).
#include <fstream>
#include <iostream>
#include <sstream>
#include <typeinfo>

#include "generate.hpp"
#include "inputs.hpp"
#include "oracle_ops.hpp"

namespace {

using namespace oracle;

// Builds every statement over `inputs` (by name); throws tj::Error for a program tensorjit refuses.
std::map<std::string, tj::Tensor> build(const Program& program, const std::map<std::string, tj::Tensor>& inputs) {
  std::map<std::string, tj::Tensor> values = inputs;
  for (const Statement& s : program.statements) {
    if (s.op == "input") continue;
    Operands operands;
    for (const std::string& name : s.operands) {
      auto found = values.find(name);
      if (found == values.end()) throw tj::Error("statement " + s.name + " reads " + name + ", which no earlier line makes");
      operands.push_back(found->second);
    }
    const OracleOp& op = find_op(s.op);
    if (static_cast<int>(operands.size()) != op.arity + op.fresh_count) throw tj::Error("statement " + s.name + ": wrong operand count");
    values[s.name] = op.build(operands, s);
  }
  return values;
}

// An index outside its axis must make the eval throw tensorjit::Error naming the op (docs/indexing.md):
// each statement that reads drawn indices runs again with one of them moved outside, in a
// contiguous layout so that the element is read. Returns "" when every one threw so. Only the
// statement's own new inputs (those after its `arity` drawn operands) are its indices: an index
// input drawn for one op may be a plain operand of another (concat_new's first, take's data).
std::string check_index_errors(const Program& program, const std::map<std::string, tj::Tensor>& values) {
  std::map<std::string, const Statement*> inputs;
  for (const Statement& s : program.statements)
    if (s.op == "input") inputs[s.name] = &s;
  for (const Statement& s : program.statements) {
    if (s.op == "input" || !find_op(s.op).fresh) continue;
    Operands operands;
    bool moved = false;
    for (std::size_t k = 0; k < s.operands.size(); ++k) {
      const std::string& name = s.operands[k];
      auto input = inputs.find(name);
      if (k >= static_cast<std::size_t>(find_op(s.op).arity) && input != inputs.end() &&
          input->second->attr("values") == "index" && values.at(name).size() > 0) {
        Statement outside = *input->second;
        outside.attrs["values"] = "index_out";
        outside.attrs["layout"] = "contiguous";
        operands.push_back(make_input(outside));
        moved = true;
      } else {
        operands.push_back(values.at(name));
      }
    }
    bool empty = false;
    for (const tj::Tensor& operand : operands) empty = empty || operand.size() == 0;
    tj::Tensor result = find_op(s.op).build(operands, s);
    if (!moved || empty || result.size() == 0) continue;  // no element reads an index
    try {
      tj::eval({result});
    } catch (const tj::Error& e) {
      if (std::string(e.what()).find(s.op + ":") == std::string::npos)
        return s.name + " (" + s.op + ") threw for an index outside its axis without naming " + s.op + ": " + e.what();
      continue;
    }
    return s.name + " (" + s.op + ") accepted an index outside its axis";
  }
  return "";
}

// Each statement of an op with a `misuse` row (the joining ops) is called again with invalid
// arguments made from its operands: each call must throw tensorjit::Error naming the user's
// function, when it is built or else when it is evaluated. Returns "" when every one did.
std::string check_misuses(const Program& program, const std::map<std::string, tj::Tensor>& values) {
  for (const Statement& s : program.statements) {
    if (s.op == "input" || !find_op(s.op).misuse) continue;
    Operands operands;
    for (const std::string& name : s.operands) operands.push_back(values.at(name));
    for (const Misuse& misuse : find_op(s.op).misuse(operands, s)) {
      const std::string where = s.name + " (" + s.op + ") with " + misuse.what;
      try {
        tj::eval({misuse.call()});
      } catch (const tj::Error& e) {
        if (std::string(e.what()).find(misuse.function + ":") == std::string::npos)
          return where + " threw without naming " + misuse.function + ": " + e.what();
        continue;
      } catch (const std::exception& e) {
        return where + " threw a " + typeid(e).name() + ", not tensorjit::Error: " + e.what();
      }
      return where + " was accepted";
    }
  }
  return "";
}

int run(const Program& program, const std::string& out_path, std::string& message) {
  std::map<std::string, tj::Tensor> inputs, fused, each;
  std::vector<tj::Tensor> outputs, all;
  try {
    for (const Statement& s : program.statements)
      if (s.op == "input") inputs[s.name] = make_input(s);
    fused = build(program, inputs);
    each = build(program, inputs);
    for (const std::string& name : program.outputs) {
      if (!fused.count(name)) throw tj::Error("out " + name + " names no statement");
      outputs.push_back(fused.at(name));
    }
  } catch (const std::exception& e) {
    message = std::string("the program is not valid: ") + e.what();
    return 3;
  }
  try {
    tj::eval(outputs);
    for (const auto& [name, value] : each) all.push_back(value);
    tj::eval(all);
    // numpy has no bf16 (save_npz refuses it): a bf16 value is saved as its f32 (exact), and
    // bf16_<name> tells check.py to round it back.
    std::map<std::string, tj::Tensor> saved;
    auto save = [&](const std::string& key, const std::string& name, const tj::Tensor& value) {
      if (value.dtype() != tj::bf16) {
        saved[key + name] = value;
        return;
      }
      saved[key + name] = value.astype(tj::f32);
      saved["bf16_" + name] = tj::scalar(true);
    };
    for (const auto& [name, value] : each) save("v_", name, value);
    for (const std::string& name : program.outputs) save("fused_", name, fused.at(name));
    tj::save_npz(out_path, saved);
    message = check_index_errors(program, each);
    if (message.empty()) message = check_misuses(program, each);
    if (!message.empty()) return 2;
  } catch (const std::exception& e) {
    message = std::string("eval threw: ") + e.what();
    return 2;
  }
  return 0;
}

// A gradient program (generate_grad_program): OUT.npz holds v_<name> for every input and
// g_<name>, tj::grad(output, {...}, dy), for each floating input but dy.
int run_grad(const Program& program, const std::string& out_path, std::string& message) {
  std::map<std::string, tj::Tensor> inputs, values;
  std::vector<std::string> names;
  std::vector<tj::Tensor> leaves;
  try {
    for (const Statement& s : program.statements) {
      if (s.op != "input") continue;
      inputs[s.name] = make_input(s);
      if (s.name != "dy" && tj::is_floating(inputs[s.name].dtype())) {
        names.push_back(s.name);
        leaves.push_back(inputs[s.name]);
      }
    }
    values = build(program, inputs);
  } catch (const std::exception& e) {
    message = std::string("the program is not valid: ") + e.what();
    return 3;
  }
  try {
    const std::vector<tj::Tensor> grads = tj::grad(values.at(program.outputs.at(0)), leaves, inputs.at("dy"));
    std::map<std::string, tj::Tensor> saved;
    for (const auto& [name, value] : inputs) saved["v_" + name] = value;
    for (std::size_t i = 0; i < names.size(); ++i) saved["g_" + names[i]] = grads[i];
    tj::save_npz(out_path, saved);
  } catch (const std::exception& e) {
    message = std::string("grad or its eval threw: ") + e.what();
    return 2;
  }
  return 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: oracle_driver ops | generate SEED | run PROGRAM.txt OUT.npz | batch DIR SEED... (grad_ops, grad_generate, "
      "grad_run, grad_batch: the same for gradient programs)";
  if (argc == 2 && std::string(argv[1]) == "ops") {
    for (const OracleOp& op : oracle_ops()) std::cout << op.name << '\n';
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "grad_ops") {
    for (const std::string& name : differentiable_ops()) std::cout << name << '\n';
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "grad_generate") {
    std::cout << to_text(generate_grad_program(std::stoull(argv[2])));
    return 0;
  }
  if (argc < 3) {
    std::cerr << usage << '\n';
    return 1;
  }
  const std::string command = argv[1];
  if (command == "generate") {
    std::cout << to_text(generate_program(std::stoull(argv[2])));
    return 0;
  }
  if (command == "run" && argc == 4) {
    std::string message;
    const int status = run(parse_program(read_file(argv[2])), argv[3], message);
    if (status != 0) std::cerr << "oracle_driver: " << message << '\n';
    return status;
  }
  if (command == "batch" || command == "grad_batch") {
    const bool grads = command == "grad_batch";
    for (int i = 3; i < argc; ++i) {
      const std::string stem = std::string(argv[2]) + "/" + argv[i];
      const Program program = grads ? generate_grad_program(std::stoull(argv[i])) : generate_program(std::stoull(argv[i]));
      std::ofstream(stem + ".txt") << to_text(program) << std::flush;
      std::string message;
      if ((grads ? run_grad(program, stem + ".npz", message) : run(program, stem + ".npz", message)) != 0)
        std::ofstream(stem + ".error") << message << '\n';
    }
    return 0;  // run.py reads the .error files
  }
  if (command == "grad_run" && argc == 4) {
    std::string message;
    const int status = run_grad(parse_program(read_file(argv[2])), argv[3], message);
    if (status != 0) std::cerr << "oracle_driver: " << message << '\n';
    return status;
  }
  std::cerr << usage << '\n';
  return 1;
}
